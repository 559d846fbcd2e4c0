// Issue #12 point 1: sign-in and sign-up throttling per account and per source address, kept in
// PostgreSQL, refusing over the limit without checking the password.
import { describe, expect, it, vi } from "vitest";
import { getSql } from "@/db";
import { registerAccount } from "@/lib/auth/register-account";
import { TooManyRequestsError } from "@/lib/errors";
import { authenticateUser } from "@/lib/auth/authenticate-user";
import { useTestDatabase } from "@/test/db";
import { createOrganizationFixture } from "@/test/fixtures";

// Counts the password hashes made (the real ones, each still made): a refusal must make none.
const scrypt = vi.hoisted(() => ({ calls: 0 }));
vi.mock("@/lib/crypto/password-hasher", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@/lib/crypto/password-hasher")>();
  return { ...actual, scryptInBackground: (...args: Parameters<typeof actual.scryptInBackground>) => (scrypt.calls++, actual.scryptInBackground(...args)) };
});

useTestDatabase();
// What is tested here is the throttle; the hashing queue (password-slots.test.ts) must not refuse first.
process.env.PASSWORD_HASH_QUEUE = "64";
const RIGHT = "a-long-test-password";
let addresses = 0;
/** A fresh documentation-range address per test, so tests do not share a per-address counter. */
const newAddress = () => `198.51.100.${++addresses}`;

async function attempt(email: string, password: string, address: string | null) {
  const started = performance.now();
  try {
    const user = await authenticateUser({ email, password, address });
    return { outcome: user ? ("signed in" as const) : ("wrong" as const), ms: performance.now() - started };
  } catch (error) {
    if (error instanceof TooManyRequestsError) return { outcome: "throttled" as const, ms: performance.now() - started, message: error.message };
    throw error;
  }
}

describe("refuses the right password after 10 wrong ones for the account, without hashing", () => {
  it("answers the 11th attempt with a clear refusal, and hashes nothing for it", async () => {
    const { email } = await createOrganizationFixture();
    const address = newAddress();
    const beforeWrong = scrypt.calls;
    for (let i = 0; i < 10; i++) expect((await attempt(email, `wrong-password-${i}`, address)).outcome).toBe("wrong");
    expect(scrypt.calls - beforeWrong).toBe(10); // each wrong password was checked: the count sees hashes
    // From another address too: the account's own limit.
    const beforeRefusals = scrypt.calls;
    for (const from of [address, newAddress(), null]) {
      const refused = await attempt(email.toUpperCase(), RIGHT, from);
      expect(refused.outcome).toBe("throttled");
      expect(refused.message).toMatch(/^Too many sign-in attempts; try again in 1[45] minutes\.$/);
    }
    expect(scrypt.calls).toBe(beforeRefusals);
  });

  it("holds the limit against many attempts at once (they count before they check)", async () => {
    const { email } = await createOrganizationFixture();
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => attempt(email, `wrong-password-${i}`, newAddress())));
    expect(results.filter((r) => r.outcome === "wrong")).toHaveLength(10);
    expect(results.filter((r) => r.outcome === "throttled")).toHaveLength(15);
    expect((await attempt(email, RIGHT, newAddress())).outcome).toBe("throttled");
  });

  it("lets the account in again once the window has passed", async () => {
    const { email } = await createOrganizationFixture();
    for (let i = 0; i < 11; i++) await attempt(email, "wrong-password", newAddress());
    expect((await attempt(email, RIGHT, null)).outcome).toBe("throttled");
    await getSql()`update auth_throttles set window_ends_at = now() - interval '1 second' where key = ${`account:${email}`}`;
    expect((await attempt(email, RIGHT, null)).outcome).toBe("signed in");
  });

  it("forgives the account's failures after a right password", async () => {
    const { email } = await createOrganizationFixture();
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < 9; i++) expect((await attempt(email, "wrong-password", newAddress())).outcome).toBe("wrong");
      expect((await attempt(email, RIGHT, newAddress())).outcome).toBe("signed in");
    }
  });
});

describe("refuses a source address after 30 failed sign-ins", () => {
  it("refuses even a right password from that address, not from another; a success does not reset it", { timeout: 120_000 }, async () => {
    const address = newAddress();
    const victims = await Promise.all(Array.from({ length: 4 }, () => createOrganizationFixture()));
    // 29 failures spread over accounts (under each account's limit of 10)…
    for (let i = 0; i < 29; i++) expect((await attempt(victims[i % 3]!.email, "wrong-password", address)).outcome).toBe("wrong");
    // …a success from the address does not wipe them…
    expect((await attempt(victims[3]!.email, RIGHT, address)).outcome).toBe("signed in");
    // …so one more failure reaches 30, and the next attempt, right password or not, is refused.
    expect((await attempt(`nobody-${address}@example.test`, "wrong-password", address)).outcome).toBe("wrong");
    const refused = await attempt(victims[3]!.email, RIGHT, address);
    expect(refused.outcome).toBe("throttled");
    expect(refused.message).toMatch(/Too many sign-in attempts/);
    expect((await attempt(victims[3]!.email, RIGHT, newAddress())).outcome).toBe("signed in");
  });

  it("counts a forged, unparseable address as one shared address", async () => {
    const { email } = await createOrganizationFixture();
    expect((await attempt(email, RIGHT, "\u0000<script>")).outcome).toBe("signed in");
    const [row] = await getSql()`select count from auth_throttles where key = 'address:unknown-form'`;
    expect(row).toBeDefined();
  });
});

describe("refuses bad sign-in input cleanly", () => {
  it("answers wrong (not an error) for a huge email, control characters, a NUL, a huge password", async () => {
    const { email } = await createOrganizationFixture();
    for (const [badEmail, password] of [
      ["x".repeat(100_000) + "@example.test", RIGHT],
      [`${email}\u0000`, RIGHT],
      [`a\u0007b@example.test`, RIGHT],
      [email, "p".repeat(100_000)],
      [email, ""],
      ["", RIGHT],
    ] as const) {
      expect((await attempt(badEmail, password, newAddress())).outcome).toBe("wrong");
    }
    expect(await authenticateUser({ email: 42, password: { not: "a string" }, address: null })).toBeNull();
    expect((await attempt(email, RIGHT, null)).outcome).toBe("signed in");
  });
});

describe("refuses a sixth sign-up from one address within the hour", () => {
  it("allows 5, refuses the 6th with a clear message, counts only would-be accounts, and not other addresses", async () => {
    const address = newAddress();
    const signUp = (from: string | null, password = RIGHT) =>
      registerAccount({ email: `new-${Math.random().toString(36).slice(2)}@example.test`, password, organizationName: "New" }, from);
    // Refused input (a weak password) does not count.
    await expect(signUp(address, "short")).rejects.toThrow(/at least 10/);
    for (let i = 0; i < 5; i++) await signUp(address);
    await expect(signUp(address)).rejects.toThrow(/^Too many sign-ups from this address; try again in (59|60) minutes\.$/);
    await signUp(newAddress());
    await signUp(null);
    const [row] = await getSql()`select count from auth_throttles where key = ${`signup:${address}`}`;
    expect(row!.count).toBe(6);
  });
});
