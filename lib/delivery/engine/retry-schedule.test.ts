import { describe, expect, it } from "vitest";
import { MAX_RETRY_AFTER_MS, MAX_RETRY_DELAY_MS, parseRetryAfterMs, retryDelayMs } from "./retry-schedule";
import { configFrom } from "@/lib/config/config";
import { retryMaxDelayMs } from "./settings";

const middle = () => 0.5; // no jitter
const lowest = () => 0; // −20 %
const highest = () => 0.999_999; // +20 %

describe("waits retryBaseSeconds × 4^(n−1) between automatic attempts", () => {
  it("gives 5 s, 20 s, 80 s, 320 s, 1280 s for the default base of 5 s", () => {
    const delays = [1, 2, 3, 4, 5].map((retryNumber) => retryDelayMs({ retryBaseSeconds: 5, retryNumber, random: middle }));
    expect(delays).toEqual([5_000, 20_000, 80_000, 320_000, 1_280_000]);
  });

  it("uses the endpoint's own base", () => {
    expect(retryDelayMs({ retryBaseSeconds: 1, retryNumber: 3, random: middle })).toBe(16_000);
    expect(retryDelayMs({ retryBaseSeconds: 60, retryNumber: 2, random: middle })).toBe(240_000);
  });
});

describe("caps the wait at one hour", () => {
  it("caps the 6th retry and every later one, even with the largest base and huge retry numbers", () => {
    expect(retryDelayMs({ retryBaseSeconds: 5, retryNumber: 6, random: middle })).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs({ retryBaseSeconds: 3600, retryNumber: 1, random: highest })).toBe(MAX_RETRY_DELAY_MS);
    expect(retryDelayMs({ retryBaseSeconds: 5, retryNumber: 10_000, random: middle })).toBe(MAX_RETRY_DELAY_MS);
  });

  it("still spreads capped retries below the hour", () => {
    expect(retryDelayMs({ retryBaseSeconds: 5, retryNumber: 7, random: lowest })).toBe(0.8 * MAX_RETRY_DELAY_MS);
  });
});

describe("jitters by ±20 %", () => {
  it("stays within 0.8× and 1.2× of the nominal wait", () => {
    expect(retryDelayMs({ retryBaseSeconds: 5, retryNumber: 2, random: lowest })).toBe(16_000);
    expect(retryDelayMs({ retryBaseSeconds: 5, retryNumber: 2, random: highest })).toBe(24_000);
    for (let i = 0; i < 1000; i++) {
      const delay = retryDelayMs({ retryBaseSeconds: 5, retryNumber: 3 });
      expect(delay).toBeGreaterThanOrEqual(64_000);
      expect(delay).toBeLessThanOrEqual(96_000);
    }
  });
});

describe("never retries sooner than the destination's Retry-After", () => {
  it("waits for a Retry-After longer than the schedule", () => {
    expect(retryDelayMs({ retryBaseSeconds: 5, retryNumber: 1, retryAfterMs: 120_000, random: middle })).toBe(120_000);
  });

  it("keeps the schedule when Retry-After is shorter", () => {
    expect(retryDelayMs({ retryBaseSeconds: 5, retryNumber: 3, retryAfterMs: 1_000, random: middle })).toBe(80_000);
  });

  it("honours a Retry-After beyond the hour cap, up to a day", () => {
    expect(retryDelayMs({ retryBaseSeconds: 5, retryNumber: 9, retryAfterMs: 2 * 3_600_000, random: middle })).toBe(2 * 3_600_000);
    expect(retryDelayMs({ retryBaseSeconds: 5, retryNumber: 1, retryAfterMs: 30 * 86_400_000, random: middle })).toBe(MAX_RETRY_AFTER_MS);
  });
});

describe("reads Retry-After as seconds or an HTTP-date", () => {
  const now = new Date("2026-11-30T12:00:00Z");

  it("reads delay-seconds", () => {
    expect(parseRetryAfterMs("120", now)).toBe(120_000);
    expect(parseRetryAfterMs(" 0 ", now)).toBe(0);
    expect(parseRetryAfterMs(["7", "9"], now)).toBe(7_000);
  });

  it("reads an IMF-fixdate and the obsolete date forms", () => {
    expect(parseRetryAfterMs("Mon, 30 Nov 2026 12:01:30 GMT", now)).toBe(90_000);
    expect(parseRetryAfterMs("Monday, 30-Nov-26 12:00:10 GMT", now)).toBe(10_000);
    expect(parseRetryAfterMs("Mon Nov 30 12:00:05 2026", now)).not.toBeNull();
  });

  it("treats a date in the past as now", () => {
    expect(parseRetryAfterMs("Sun, 29 Nov 2026 12:00:00 GMT", now)).toBe(0);
  });

  it("ignores what it cannot read", () => {
    for (const value of [undefined, null, "", "soon", "-5", "1.5", "12abc"]) expect(parseRetryAfterMs(value, now)).toBeNull();
  });

  it("caps absurd values at a day", () => {
    expect(parseRetryAfterMs("999999999999999999999", now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfterMs("Fri, 31 Dec 9999 23:59:59 GMT", now)).toBe(MAX_RETRY_AFTER_MS);
  });
});

describe("caps the wait at DELIVERY_RETRY_MAX_DELAY_SECONDS when set", () => {
  it("caps at the configured seconds, jitter staying under the cap", () => {
    const saved = process.env.DELIVERY_RETRY_MAX_DELAY_SECONDS;
    process.env.DELIVERY_RETRY_MAX_DELAY_SECONDS = "20";
    try {
      expect(retryDelayMs({ retryBaseSeconds: 1, retryNumber: 3, random: middle })).toBe(16_000);
      expect(retryDelayMs({ retryBaseSeconds: 1, retryNumber: 4, random: middle })).toBe(20_000);
      expect(retryDelayMs({ retryBaseSeconds: 1, retryNumber: 5, random: lowest })).toBe(16_000);
      expect(retryDelayMs({ retryBaseSeconds: 1, retryNumber: 5, random: highest })).toBe(20_000);
      // The destination's Retry-After still wins.
      expect(retryDelayMs({ retryBaseSeconds: 1, retryNumber: 5, retryAfterMs: 60_000, random: middle })).toBe(60_000);
    } finally {
      if (saved === undefined) delete process.env.DELIVERY_RETRY_MAX_DELAY_SECONDS;
      else process.env.DELIVERY_RETRY_MAX_DELAY_SECONDS = saved;
    }
  });

  it("keeps one hour when unset, and refuses what is not a positive whole number, naming the variable", () => {
    expect(retryMaxDelayMs(configFrom({}))).toBe(3_600_000);
    expect(() => retryMaxDelayMs(configFrom({ DELIVERY_RETRY_MAX_DELAY_SECONDS: "abc" }))).toThrow(/DELIVERY_RETRY_MAX_DELAY_SECONDS="abc": a whole number/);
    expect(retryMaxDelayMs(configFrom({ DELIVERY_RETRY_MAX_DELAY_SECONDS: "30" }))).toBe(30_000);
  });
});
