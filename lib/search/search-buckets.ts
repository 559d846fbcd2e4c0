// The body index's time buckets (BODY_INDEX_TIME_BUCKET, db/online-indexes.ts) as a search asks for them: which
// buckets hold the ids of a slice of receipt times, the deliveries of those times whose ids are elsewhere, and
// each bucket's condition on delivery_payloads (lib/search/search-deliveries.ts, indexedMatches).
import { sql, type SQL } from "drizzle-orm";
import { BODY_INDEX_TIME_BUCKET } from "@/db/online-indexes";
import { deliveryPayloads } from "@/db/schema";
import { timeOrderedIdFloor } from "@/lib/ids";
import { weekStartOf, weeksAfter } from "@/lib/storage/batch-id-range";

/** A slice of receipt times, [from, to] (ISO, both included), and the time buckets to ask for it (bucketsAround). */
export type SliceTimes = { from: string; to: string; buckets: string[] };

const bucketOf = (id: SQL) => sql`left(${id}, ${sql.raw(String(BODY_INDEX_TIME_BUCKET.length))})`;

/**
 * The slice's time buckets, each as the condition of its own statement (UNION ALL), so that the body's word
 * index is asked for the bucket's key and q's words at once (a GIN scan that skips through the words'
 * entries to the bucket's few). ORed in one statement, PostgreSQL takes the words out of the OR and may scan
 * them alone, fetching every match of q to filter by bucket (it did with trigrams, on a small table); as
 * `= any(buckets)`, it prices one GIN scan per bucket and may again take them alone (trigrams: 394 bodies for 39).
 * Each names the whole week(s) of its bucket, which keeps its partition and no other: a narrower id range
 * makes the primary key look cheaper than the body index to the planner, which prices q's test of a body
 * far below its cost (the bucket's 1,700 bodies read and tested, 5,507 in the test against 157).
 */
export function inBucketsOf(slice: Pick<SliceTimes, "buckets">, idFloor: string): SQL[] {
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
 * The time buckets that hold the id of every delivery received from `fromMs` to `toMs` whose id was made within a
 * bucket of its receipt: the receipts' buckets and one either side. The rest are off the clock (offClockIds).
 */
export function bucketsAround(fromMs: number, toMs: number): string[] {
  const first = Math.floor(fromMs / BODY_INDEX_TIME_BUCKET.ms) - 1;
  const last = Math.floor(toMs / BODY_INDEX_TIME_BUCKET.ms) + 1;
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => bucketNamed(first + i));
}

/**
 * The ids of the organization's deliveries received from `from` to `to` (timestamptz expressions, both included)
 * whose id's bucket is not around their receipt's (migration 0033's inbox_delivery_id_off_clock: an id made before
 * ids held their time, or by a clock off the database's by more than a bucket): those bucketsAround does not reach.
 * Read from deliveries_org_off_clock_idx, partial on that predicate, which the planner matches only when the
 * query names it the same way.
 */
export function offClockIds(organizationId: string, idFloor: string, from: SQL, to: SQL, limit?: number): SQL {
  return sql`select off_clock.id from deliveries off_clock
    where off_clock.organization_id = ${organizationId} and off_clock.id >= ${idFloor}
      and off_clock.received_at >= ${from} and off_clock.received_at <= ${to}
      and inbox_delivery_id_off_clock(off_clock.id, off_clock.received_at)${limit === undefined ? sql`` : sql` limit ${limit}`}`;
}
