import { describe, expect, it } from "vitest";
import { bucketsBetween, weeksOfBucket } from "@/lib/delivery/search-buckets";
import { newId, timeOrderedIdFloor } from "@/lib/ids";
import { BODY_INDEX_TIME_BUCKET } from "@/db/online-indexes";

const BUCKET_MS = BODY_INDEX_TIME_BUCKET.ms;

const idAt = (ms: number) => timeOrderedIdFloor("dlv", ms) + newId("dlv").slice(-15);

describe("bucketsBetween: the body index's time buckets a slice of ids spans", () => {
  it("one bucket when both ids are in it", () => {
    const start = Math.ceil(Date.UTC(2026, 11, 5) / BUCKET_MS) * BUCKET_MS;
    expect(bucketsBetween(idAt(start), idAt(start + BUCKET_MS - 1), 64)).toEqual([idAt(start).slice(0, 10)]);
  });

  it("every bucket in order, across a carry of the base-36 digits", () => {
    const low = idAt(Math.ceil(Date.UTC(2026, 11, 5) / BUCKET_MS) * BUCKET_MS);
    const carry = low.slice(0, 9) + "z"; // the last bucket before the 4th digit turns over
    const lowMs = parseInt(carry.slice(5, 10) + "0000", 36);
    const buckets = bucketsBetween(idAt(lowMs), idAt(lowMs + 2 * BUCKET_MS + 5), 64);
    expect(buckets).toEqual([carry, idAt(lowMs + BUCKET_MS).slice(0, 10), idAt(lowMs + 2 * BUCKET_MS).slice(0, 10)]);
    expect(buckets![1]!.endsWith("0")).toBe(true);
  });

  it("none for an id made before ids held their time, or past the most asked for", () => {
    const now = Date.now();
    expect(bucketsBetween(`dlv_${"7".repeat(25)}`, idAt(now), 64)).toBeUndefined();
    expect(bucketsBetween(idAt(now - 63 * BUCKET_MS), idAt(now), 64)?.length).toBeGreaterThanOrEqual(63);
    expect(bucketsBetween(idAt(now - 64 * BUCKET_MS), idAt(now), 64)).toBeUndefined();
  });
});

describe("weeksOfBucket: the id range a bucket is asked for in, whole weeks", () => {
  const monday = Date.UTC(2026, 10, 30); // Monday 30 November 2026, 00:00 UTC
  const week = 7 * 86_400_000;

  it("the week holding a bucket", () => {
    const bucket = idAt(monday + 3 * 86_400_000).slice(0, 10);
    expect(weeksOfBucket(bucket)).toEqual({ from: timeOrderedIdFloor("dlv", monday), to: timeOrderedIdFloor("dlv", monday + week) });
  });

  it("both weeks for a bucket across a Monday, so that its ids on either side are found", () => {
    const across = idAt(monday - 1).slice(0, 10);
    expect(idAt(monday + 1).slice(0, 10)).toBe(across); // 00:00 is not a bucket's edge
    const { from, to } = weeksOfBucket(across);
    for (const id of [idAt(monday - 1), idAt(monday + 1)]) {
      expect(id >= from && id < to).toBe(true);
    }
    expect(from).toBe(timeOrderedIdFloor("dlv", monday - week));
  });
});
