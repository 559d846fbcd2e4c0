// Retention by whole weeks (the storage layout, ARCHITECTURE.md): a past week of delivery partitions in which
// every delivery is settled and past its own organization's retention is dropped as three tables, instead of
// deleted row by row with its 19 index entries, payload and attempts. Rows expire one at a time and the
// sweep's row deletes take each as it does, so a week goes this way when the sweep has a backlog (a retention
// lowered, a sweep stopped for a while) or once the row deletes have emptied it; otherwise a week still
// holding one delivery someone keeps stays, and the row deletes go on. The week's dedupe keys go first, and a
// delivery replayed meanwhile puts its own back (lib/delivery/sql/replay.ts).
import type postgres from "postgres";
import { getSql } from "@/db";
import { DELIVERY_REMOVAL_LOCK, deliveriesOfWeek, dropDeliveryWeek, lockDeliveryWeek, pastDeliveryWeeks } from "@/lib/storage/delivery-partitions";
import { withLockTimeout } from "@/lib/storage/lock-timeout";

export interface WeeksDropped {
  /** The Mondays (YYYYMMDD) of the weeks dropped. */
  weeks: string[];
  /** Deliveries dropped with them. */
  deliveries: number;
  /** False when the budget ended, or a drop gave way to someone's statement, before every past week was looked at. */
  finished: boolean;
}

type Sql = postgres.Sql | postgres.TransactionSql;

/**
 * Looks at each week that ended before `now`, oldest first, and drops those retention has nothing left to keep
 * in. A week's dedupe keys (delivery_keys is not partitioned) go first, in batches of `batchSize` walked by id
 * outside any lock, `afterBatch` called after each (the sweep rests and counts). Then, in one transaction, the
 * week is counted, the three parents locked, the week
 * looked at again (a replay or bury since sets updated_at and keeps it), the counters' removals written (a DROP
 * fires no trigger) and the week dropped. The removal lock is waited for 200 ms at most; the parents' and the week's
 * locks are never queued for (lockDeliveryWeek), and given up after 3 s of tries.
 */
export async function dropExpiredDeliveryWeeks({
  sql = getSql(),
  now = new Date(),
  batchSize,
  outOfBudget,
  afterBatch,
}: {
  sql?: postgres.Sql;
  now?: Date;
  batchSize: number;
  outOfBudget: () => boolean;
  afterBatch: (keysDeleted: number, ms: number) => Promise<void>;
}): Promise<WeeksDropped> {
  const dropped: WeeksDropped = { weeks: [], deliveries: 0, finished: true };
  for (const suffix of await pastDeliveryWeeks(sql, now)) {
    if (!(await isExpiredWeek(sql, suffix))) continue;
    for (let after: string | null = ""; after !== null; ) {
      if (outOfBudget()) return { ...dropped, finished: false };
      const started = performance.now();
      const batch = await deleteExpiredKeys(sql, suffix, after, batchSize);
      after = batch.last ?? null;
      await afterBatch(batch.deleted, performance.now() - started);
    }
    const removed = await withLockTimeout(sql, "200ms", (tx) => dropIfExpired(tx, suffix));
    if (removed === null || removed === BUSY) return { ...dropped, finished: false }; // the tables stayed busy: the next run
    if (removed >= 0) {
      dropped.weeks.push(suffix.slice(2));
      dropped.deliveries += removed;
    }
  }
  return dropped;
}

/**
 * Whether no delivery of the week is pending or delivering, and each organization's newest settled one in it
 * (delivered, dead, or filtered: a request no destination took, which goes with its week, never alone) is past
 * that organization's retention (database clock). Index probes only, cheap enough to run under the
 * parents' lock: the organizations in the week by a skip scan of deliveries_org_received_idx, then per
 * organization the newest entry of deliveries_org_settled_idx, stopping at the first organization that keeps
 * something (the walk is pulled as needed: a week most keep costs a probe or two a run); deliveries_org_open_idx
 * for the open ones. A buried delivery's claim is not looked at: its lease (minutes) lapsed long before its
 * retention (a day at least).
 */
async function isExpiredWeek(sql: Sql, suffix: string): Promise<boolean> {
  const week = sql(deliveriesOfWeek(suffix));
  const [row] = await sql<{ expired: boolean }[]>`
    with recursive orgs(id) as (
      (select organization_id from ${week} order by organization_id limit 1)
      union all
      select (select d.organization_id from ${week} d where d.organization_id > orgs.id order by d.organization_id limit 1)
      from orgs where orgs.id is not null
    )
    select not exists (select from ${week} d where d.status in ('pending', 'delivering'))
      and not exists (select from orgs where orgs.id is not null and not coalesce(
        (select max(d.updated_at) from ${week} d where d.organization_id = orgs.id and d.status in ('delivered', 'dead', 'filtered'))
          < now() - make_interval(days => (select o.retention_days from organizations o where o.id = orgs.id)),
        false)) as expired`;
  return row?.expired === true;
}

/**
 * Deletes the dedupe keys of the week's next `limit` deliveries after `after` (by id) that are settled and
 * past their retention as they stand now. Their event ids are then accepted again, as after a row delete.
 */
async function deleteExpiredKeys(sql: Sql, suffix: string, after: string, limit: number): Promise<{ last: string | null; deleted: number }> {
  const [row] = await sql<{ last: string | null; deleted: number }[]>`
    with batch as (
      select d.id, d.endpoint_id, d.external_id, d.organization_id, d.status, d.updated_at
      from ${sql(deliveriesOfWeek(suffix))} d where d.id > ${after} order by d.id limit ${limit}
    ), gone as (
      delete from delivery_keys k using batch b join organizations o on o.id = b.organization_id
      where k.endpoint_id = b.endpoint_id and k.external_id = b.external_id and k.delivery_id = b.id
        and b.status in ('delivered', 'dead', 'filtered') and b.updated_at < now() - make_interval(days => o.retention_days)
      returning 1
    )
    select (select max(id) from batch) as last, (select count(*)::int from gone) as deleted`;
  return { last: row?.last ?? null, deleted: row?.deleted ?? 0 };
}

const CHANGED = -1;
const BUSY = -2;

/**
 * In the caller's transaction: counts the week, locks the parents, and drops the week if it is still all
 * expired; returns the deliveries dropped, CHANGED when one was changed meanwhile, BUSY when the lock never
 * came (nothing dropped). The count
 * comes before the lock, so ingest waits only for the look and the drop: the removal lock keeps purges from
 * deleting a counted row meanwhile (the row deletes of retention run in this same sweep, one at a time), and
 * any other change to a row sets its updated_at, which the look sees.
 */
async function dropIfExpired(tx: postgres.TransactionSql, suffix: string): Promise<number> {
  await tx`select pg_advisory_xact_lock(hashtext(${DELIVERY_REMOVAL_LOCK}))`;
  const counted = await tx<{ endpoint_id: string; organization_id: string; destination_id: string; status: string; n: number }[]>`
    select endpoint_id, organization_id, destination_id, status, count(*)::int as n from ${tx(deliveriesOfWeek(suffix))} group by 1, 2, 3, 4`;
  if (!(await lockDeliveryWeek(tx, suffix))) return BUSY;
  if (!(await isExpiredWeek(tx, suffix))) return CHANGED;
  // What inbox_count_deleted_deliveries (0041_counters_by_destination.sql) writes for a DELETE of these rows: filtered ones were
  // never counted.
  await tx`
    with c as (
      select * from unnest(${counted.map((c) => c.endpoint_id)}::text[], ${counted.map((c) => c.organization_id)}::text[],
        ${counted.map((c) => c.destination_id)}::text[], ${counted.map((c) => c.status)}::text[], ${counted.map((c) => c.n)}::int[])
        as c(endpoint_id, organization_id, destination_id, status, n)
    )
    insert into delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count)
    select endpoint_id, organization_id, destination_id, 'removed', 0, sum(n) from c where status <> 'filtered' group by 1, 2, 3
    union all
    select endpoint_id, organization_id, destination_id, 'no_longer_' || status, 0, n from c where status in ('delivered', 'dead')`;
  await dropDeliveryWeek(tx, suffix);
  return counted.reduce((sum, c) => sum + c.n, 0);
}
