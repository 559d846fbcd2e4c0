import { describe, expect, it } from "vitest";
import { hashPassword, passwordProblem, verifyPassword } from "./password";

describe("password hashing", () => {
  it("verifies the right password and refuses a wrong one", async () => {
    const stored = await hashPassword("correct horse battery");
    expect(stored).toMatch(/^scrypt\$/);
    expect(stored).not.toContain("correct horse");
    expect(await verifyPassword("correct horse battery", stored)).toBe(true);
    expect(await verifyPassword("correct horse battery!", stored)).toBe(false);
  });

  it("salts every hash", async () => {
    expect(await hashPassword("same password 1")).not.toBe(await hashPassword("same password 1"));
  });

  it("hashes new passwords at PASSWORD_HASH_COST, and verifies a hash by the cost stored with it", async () => {
    const before = process.env.PASSWORD_HASH_COST;
    try {
      process.env.PASSWORD_HASH_COST = "15";
      const strong = await hashPassword("made at the default cost");
      expect(strong.split("$").slice(1, 4)).toEqual(["32768", "8", "1"]);
      process.env.PASSWORD_HASH_COST = "12";
      const cheap = await hashPassword("made at the tests' cost");
      expect(cheap.split("$")[1]).toBe("4096");
      expect(await verifyPassword("made at the default cost", strong)).toBe(true);
      expect(await verifyPassword("made at the default cost!", strong)).toBe(false);
      expect(await verifyPassword("made at the tests' cost", cheap)).toBe(true);
    } finally {
      if (before === undefined) delete process.env.PASSWORD_HASH_COST;
      else process.env.PASSWORD_HASH_COST = before;
    }
  });

  it("names weak passwords", () => {
    expect(passwordProblem("short")).toMatch(/at least 10/);
    expect(passwordProblem("aaaaaaaaaaaa")).toMatch(/too easy/);
    expect(passwordProblem("a-decent-passphrase")).toBeNull();
  });
});
