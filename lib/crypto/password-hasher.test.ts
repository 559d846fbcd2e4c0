import { scryptSync } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scryptInBackground } from "./password-hasher";

/** The nice value of each of this process's threads (Linux: field 19 of /proc/self/task/<tid>/stat). */
const threadNiceValues = () =>
  new Map(readdirSync("/proc/self/task").map((tid) => [Number(tid), Number(readFileSync(`/proc/self/task/${tid}/stat`, "utf8").split(") ")[1]!.split(" ")[16])]));

describe("scrypt in a low-priority thread", () => {
  // The product's default priority: vitest.config.ts sets PASSWORD_HASH_NICE=0 for the fixtures of the tests.
  const configured = process.env.PASSWORD_HASH_NICE;
  beforeAll(() => void delete process.env.PASSWORD_HASH_NICE);
  afterAll(() => void (configured === undefined ? delete process.env.PASSWORD_HASH_NICE : (process.env.PASSWORD_HASH_NICE = configured)));

  it("derives the same key as scryptSync, in a thread at nice 10 while the main thread stays at 0", async () => {
    const salt = Buffer.from("0123456789abcdef");
    const options = { N: 2 ** 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
    const [key] = await Promise.all([scryptInBackground("pässword", salt, 32, options), scryptInBackground("other", salt, 32, options)]);
    expect(key.equals(scryptSync("pässword", salt, 32, options))).toBe(true);
    const nice = threadNiceValues();
    expect(nice.get(process.pid)).toBe(0); // the main thread's id is the process's
    expect([...nice.values()].filter((n) => n === 10).length).toBeGreaterThanOrEqual(2);
  });

  it("rejects what scrypt rejects", async () => {
    await expect(scryptInBackground("x", Buffer.alloc(16), 32, { N: 3, r: 8, p: 1 })).rejects.toThrow();
  });
});
