import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limiter";

describe("an organization's ingest rate", () => {
  it("lets a burst through, then one request per 1/rate seconds, and says how long to wait", () => {
    const limiter = new RateLimiter({ ratePerSecond: 2, burst: 3 });
    const at = 1_000;
    expect([0, 1, 2].map(() => limiter.take("org_a", at))).toEqual([0, 0, 0]);
    expect(limiter.take("org_a", at)).toBe(1); // empty: a token in 0.5 s, Retry-After rounds up to 1
    expect(limiter.take("org_a", at + 499)).toBe(1);
    expect(limiter.take("org_a", at + 500)).toBe(0);
    expect(limiter.take("org_a", at + 500)).toBe(1);
    // A long quiet spell refills to the burst, not beyond.
    expect([0, 1, 2, 3].map(() => limiter.take("org_a", at + 60_000))).toEqual([0, 0, 0, 1]);
  });

  it("counts a body as one request per bytesPerRequest bytes, so big bodies reach the rate sooner", () => {
    const limiter = new RateLimiter({ ratePerSecond: 2, burst: 4, bytesPerRequest: 16_384 });
    expect(limiter.take("org_a", 0)).toBe(0);
    limiter.chargeBody("org_a", 16_384, 0); // one request's worth: nothing more
    expect(limiter.take("org_a", 0)).toBe(0);
    limiter.chargeBody("org_a", 65_536, 0); // four requests' worth: three more, the bucket 2 − 3 = −1
    expect(limiter.take("org_a", 0)).toBe(1); // 2 tokens short at 2/s: Retry-After 1 s
    expect(limiter.take("org_a", 999)).toBe(1);
    expect(limiter.take("org_a", 1_000)).toBe(0);
    // Another organization's small bodies are counted apart.
    for (let i = 0; i < 4; i++) {
      expect(limiter.take("org_b", 0)).toBe(0);
      limiter.chargeBody("org_b", 1_200, 0);
    }
  });

  it("counts every body as one request without bytesPerRequest", () => {
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 2 });
    expect(limiter.take("org_a", 0)).toBe(0);
    limiter.chargeBody("org_a", 10_000_000, 0);
    expect(limiter.take("org_a", 0)).toBe(0);
  });

  it("counts each organization apart, so one at its limit leaves the others theirs", () => {
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1 });
    expect(limiter.take("org_a", 0)).toBe(0);
    expect(limiter.take("org_a", 0)).toBe(1);
    expect(limiter.take("org_b", 0)).toBe(0);
  });

  it("answers a whole number of seconds to wait at slow rates", () => {
    const limiter = new RateLimiter({ ratePerSecond: 0.1, burst: 1 });
    limiter.take("org_a", 0);
    expect(limiter.take("org_a", 0)).toBe(10);
    expect(limiter.take("org_a", 4_000)).toBe(6);
  });

  it("keeps at most maxOrganizations buckets, forgetting the least recently seen", () => {
    const limiter = new RateLimiter({ ratePerSecond: 1, burst: 1, maxOrganizations: 100 });
    limiter.take("org_busy", 0);
    for (let i = 0; i < 1_000; i++) {
      limiter.take(`org_${i}`, 0);
      limiter.take("org_busy", 0); // seen all along: never the one forgotten
    }
    expect(limiter.size).toBe(100);
    expect(limiter.take("org_busy", 0)).toBe(1); // still empty: its bucket was kept
  });
});
