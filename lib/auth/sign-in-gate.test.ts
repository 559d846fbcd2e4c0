import { describe, expect, it } from "vitest";
import { signInAdmitted } from "./sign-in-gate";

describe("the sign-in gate admits a few sign-ins a second per process and turns the rest away at once", () => {
  it("admits a burst of 2 × AUTH_SIGNIN_RATE, then refuses until tokens come back", async () => {
    process.env.AUTH_SIGNIN_RATE = "20";
    const burst = Array.from({ length: 50 }, () => signInAdmitted());
    expect(burst.filter(Boolean)).toHaveLength(40);
    expect(burst.slice(40).some(Boolean)).toBe(false);
    await new Promise((r) => setTimeout(r, 120)); // tokens come back at 20/s
    const later = Array.from({ length: 10 }, () => signInAdmitted()).filter(Boolean).length;
    expect(later).toBeGreaterThanOrEqual(1);
    delete process.env.AUTH_SIGNIN_RATE;
  });
});
