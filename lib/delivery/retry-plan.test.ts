import { describe, expect, it } from "vitest";
import { retryPlan, type RetryPlanInput } from "./retry-plan";

const base: RetryPlanInput = { status: "pending", autoAttemptCount: 3, nextAttemptAt: new Date("2026-11-30T12:00:16Z"), maxAttempts: 8, retryBaseSeconds: 1, paused: false };

describe("a delivery's retry plan", () => {
  it("after attempt 3 of 8 failed: attempt 4 when scheduled, then 5–8 at the schedule's nominal waits (capped at an hour)", () => {
    expect(retryPlan({ ...base, maxAttempts: 8 })).toEqual({
      maxAttempts: 8,
      last: 3,
      inFlight: false,
      next: { number: 4, at: new Date("2026-11-30T12:00:16Z") },
      later: [
        { number: 5, afterSeconds: 64 },
        { number: 6, afterSeconds: 256 },
        { number: 7, afterSeconds: 1024 },
        { number: 8, afterSeconds: 3600 },
      ],
      paused: false,
    });
  });

  it("with an attempt in flight, lists the ones that follow it", () => {
    const plan = retryPlan({ ...base, status: "delivering", autoAttemptCount: 7, nextAttemptAt: null, retryBaseSeconds: 5 })!;
    expect(plan).toMatchObject({ last: 7, inFlight: true, next: null, later: [{ number: 8, afterSeconds: 3600 }] });
  });

  it("replayed and not attempted yet: attempt 1 of a new series, at once", () => {
    const plan = retryPlan({ ...base, autoAttemptCount: 0, nextAttemptAt: null, maxAttempts: 3, retryBaseSeconds: 5 })!;
    expect(plan).toMatchObject({ last: 0, next: { number: 1, at: null }, later: [{ number: 2, afterSeconds: 5 }, { number: 3, afterSeconds: 20 }] });
  });

  it("paused: the next attempt waits for the endpoint to resume", () => {
    expect(retryPlan({ ...base, paused: true })).toMatchObject({ paused: true, next: { number: 4, at: null } });
  });

  it("settled deliveries have no plan", () => {
    expect(retryPlan({ ...base, status: "delivered" })).toBeNull();
    expect(retryPlan({ ...base, status: "dead" })).toBeNull();
  });
});
