// The body index's time buckets (BODY_INDEX_TIME_BUCKET, db/online-indexes.ts) as a search asks for them:
// which buckets a slice of deliveries spans, and each bucket's condition on delivery_payloads
// (lib/delivery/search-deliveries.ts, indexedMatches).
import { sql, type SQL } from "drizzle-orm";
import { BODY_INDEX_TIME_BUCKET } from "@/db/online-indexes";
import { deliveryPayloads } from "@/db/schema";
import { timeOrderedIdFloor } from "@/lib/ids";
import { weekStartOf, weeksAfter } from "@/lib/storage/batch-id-range";

/** The ids of a slice of deliveries: their least and greatest, and the time buckets between (bucketsBetween). */
export type SliceIds = { low: string; high: string; buckets: string[] };

const bucketOf = (id: SQL) => sql`left(${id}, ${sql.raw(String(BODY_INDEX_TIME_BUCKET.length))})`;

/**
 * The slice's time buckets, each as the condition of its own statement (UNION ALL), so that the body's trigram
 * index is asked for the bucket's key and q's trigrams at once (a GIN scan that skips through the trigrams'
 * entries to the bucket's few). ORed in one statement, PostgreSQL takes the trigrams out of the OR and may scan
 * them alone, fetching every match of q to filter by bucket (it did, on a small table); as `= any(buckets)`, it
 * prices one GIN scan per bucket and may again take the trigrams alone (it did, 394 bodies for 39).
 * Each names the whole week(s) of its bucket, which keeps its partition and no other: a narrower id range
 * makes the primary key look cheaper than the trigram index to the planner, which prices q's test of a body
 * far below its cost (the bucket's 1,700 bodies read and tested, 5,507 in the test against 157).
 */
export function inBucketsOf(slice: SliceIds, idFloor: string): SQL[] {
  const id = sql`${deliveryPayloads.deliveryId}`;
  return slice.buckets.map((bucket) => {
    const { from, to } = weeksOfBucket(bucket);
    return sql`${id} >= ${from > idFloor ? from : idFloor} and ${id} < ${to} and ${bucketOf(id)} = ${bucket}`;
  });
}

/** The ids of the whole weeks a bucket's ids are in, [from, to): one week, or two for a bucket across a Monday. */
export function weeksOfBucket(bucket: string): { from: string; to: string } {
  return { from: weekStartOf(bucketFloor(bucket)), to: weeksAfter(bucketFloor(bucket, 1), 1) };
}

const bucketNumber = (id: string) => parseInt(id.slice(BODY_INDEX_TIME_BUCKET.marker.length, BODY_INDEX_TIME_BUCKET.length), 36);
const bucketNamed = (n: number) =>
  BODY_INDEX_TIME_BUCKET.marker + n.toString(36).padStart(BODY_INDEX_TIME_BUCKET.length - BODY_INDEX_TIME_BUCKET.marker.length, "0");
/** The least id of the bucket `n` buckets after this one (0: its own). */
const bucketFloor = (bucket: string, n = 0) => timeOrderedIdFloor("dlv", (bucketNumber(bucket) + n) * BODY_INDEX_TIME_BUCKET.ms);

/**
 * Every time bucket (BODY_INDEX_TIME_BUCKET) from the one of `low` to the one of `high`, when both are
 * time-ordered ids and there are at most `most`; none otherwise (an id made before ids held their
 * time says nothing of its bucket).
 */
export function bucketsBetween(low: string, high: string, most: number): string[] | undefined {
  const { marker } = BODY_INDEX_TIME_BUCKET;
  if (!low.startsWith(marker) || !high.startsWith(marker)) return undefined;
  const first = bucketNumber(low);
  const last = bucketNumber(high);
  if (!(last >= first) || last - first >= most) return undefined;
  return Array.from({ length: last - first + 1 }, (_, i) => bucketNamed(first + i));
}
