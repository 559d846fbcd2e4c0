import { describe, expect, it } from "vitest";
import { bucketsAround, weeksOfBucket } from "@/lib/search/search-buckets";
import { newId, timeOrderedIdFloor } from "@/lib/ids";
import { BODY_INDEX_TIME_BUCKET } from "@/db/online-indexes";

const BUCKET_MS = BODY_INDEX_TIME_BUCKET.ms;

const idAt = (ms: number) => timeOrderedIdFloor("dlv", ms) + newId("dlv").slice(-15);

describe("bucketsAround: the body index's time buckets that hold a slice of receipt times' ids", () => {
  const start = Math.ceil(Date.UTC(2026, 11, 5) / BUCKET_MS) * BUCKET_MS; // a bucket's first millisecond
  const bucketAt = (ms: number) => idAt(ms).slice(0, 10);

  it("the receipts' buckets and one either side, in order", () => {
    expect(bucketsAround(start, start + BUCKET_MS - 1)).toEqual([bucketAt(start - 1), bucketAt(start), bucketAt(start + BUCKET_MS)]);
    expect(bucketsAround(start - 1, start)).toEqual([bucketAt(start - BUCKET_MS - 1), bucketAt(start - 1), bucketAt(start), bucketAt(start + BUCKET_MS)]);
  });

  it("every bucket in order, across a carry of the base-36 digits", () => {
    const carry = bucketAt(start).slice(0, 9) + "z"; // the last bucket before the 4th digit turns over
    const carryMs = parseInt(carry.slice(5, 10) + "0000", 36);
    const buckets = bucketsAround(carryMs, carryMs + BUCKET_MS + 5);
    expect(buckets).toEqual([bucketAt(carryMs - 1), carry, bucketAt(carryMs + BUCKET_MS), bucketAt(carryMs + 2 * BUCKET_MS)]);
    expect(buckets[2]!.endsWith("0")).toBe(true);
  });

  it("holds every id made within a bucket of its receipt, whichever way the clock was off", () => {
    for (const receivedMs of [start, start + BUCKET_MS / 2, start + BUCKET_MS - 1]) {
      const buckets = bucketsAround(receivedMs, receivedMs);
      for (const offMs of [-BUCKET_MS, -1, 0, 1, BUCKET_MS - 1]) {
        expect(buckets).toContain(bucketAt(receivedMs + offMs));
      }
    }
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
