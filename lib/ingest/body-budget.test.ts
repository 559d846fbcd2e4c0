import { describe, expect, it } from "vitest";
import { TooManyRequestsError } from "@/lib/errors";
import { BodyBudget } from "./body-budget";

const MiB = 1_048_576;
const budget = () => new BodyBudget({ totalBytes: 100 * MiB, floorBytes: MiB, retryAfterSeconds: 2 });

function refused(attempt: () => void): TooManyRequestsError {
  try {
    attempt();
  } catch (error) {
    expect(error).toBeInstanceOf(TooManyRequestsError);
    return error as TooManyRequestsError;
  }
  throw new Error("was not refused");
}

describe("the body budget", () => {
  it("lets a lone organization hold half, and refuses it with 429 + Retry-After past that", () => {
    const b = budget();
    const holds = Array.from({ length: 5 }, () => b.hold("org_a"));
    holds.forEach((hold) => hold.add(10 * MiB));
    const error = refused(() => b.hold("org_a").add(1));
    expect(error.status).toBe(429);
    expect(error.code).toBe("too_many_bytes_in_flight");
    expect(error.retryAfterSeconds).toBe(2);
    expect(b.heldBy("org_a")).toBe(50 * MiB);
  });

  it("refuses the organization holding big bodies before another's small request", () => {
    const b = budget();
    for (let i = 0; i < 5; i++) b.hold("org_a").add(10 * MiB);
    const small = b.hold("org_b");
    small.add(4_096); // B fits: A holds only its half
    expect(b.shareOf("org_a")).toBe(Math.floor((100 * MiB) / 3));
    refused(() => b.hold("org_a").add(1)); // A is now over its share of a third
    expect(() => b.hold("org_b").add(10 * MiB)).not.toThrow();
  });

  it("counts bytes as they arrive and gives them all back on release, once", () => {
    const b = budget();
    const hold = b.hold("org_a");
    for (let i = 0; i < 10; i++) hold.add(MiB);
    expect(b.heldBy("org_a")).toBe(10 * MiB);
    hold.release();
    hold.release();
    expect(b.heldBy("org_a")).toBe(0);
    expect(b.heldBy()).toBe(0);
    expect(b.shareOf("org_b")).toBe(50 * MiB); // nobody holds anything: back to half
  });

  it("keeps a refused reservation out of the count", () => {
    const b = budget();
    const hold = b.hold("org_a");
    hold.add(49 * MiB);
    refused(() => hold.add(2 * MiB));
    expect(b.heldBy("org_a")).toBe(49 * MiB);
    hold.release();
    expect(b.heldBy()).toBe(0);
  });

  it("never lets the total pass the budget, even when floors add up to more", () => {
    const b = new BodyBudget({ totalBytes: 10 * MiB, floorBytes: 4 * MiB, retryAfterSeconds: 1 });
    b.hold("org_a").add(4 * MiB);
    b.hold("org_b").add(4 * MiB);
    const error = refused(() => b.hold("org_c").add(3 * MiB));
    expect(error.message).toContain("this server's request-body budget");
    expect(b.heldBy()).toBe(8 * MiB);
  });
});
