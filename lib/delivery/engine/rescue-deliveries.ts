// The safety net behind the worker's own bookkeeping, run every minute (jobs/rescue-deliveries.ts):
// a claim whose lease ran out long ago has lost its job (it failed for good, or was deleted); a
// destination's count of attempts in flight has drifted from its `delivering` rows; parked deliveries
// of a destination with free slots have lost their wake-up (say, the process died between an unpause
// and its wake-up); a pending delivery has no job that can still run (graphile-worker spent the job's
// own attempts through hours of database trouble, or the job was removed). Each is put right.
// Normally it finds nothing.
import type postgres from "postgres";
import { getSql } from "@/db";
import { deliverJobSpec, enqueueRaw } from "@/lib/queue/enqueue";
import { hasRunnableKeyedJobSql } from "@/lib/queue/queue-tables";
import { floorOfDestinations } from "@/lib/storage/delivery-id-floor";
import { lockDestinationSlots, rawRunner, SHARD_MASK, wakeParkedDeliveries } from "./destination-slots";
import { logDelivery } from "@/lib/logging/log-delivery";
import { deliverySettings } from "./settings";
import { REQUEUE_ORPHANS } from "./sql/requeue-orphans";
import { RESCUE_LAPSED } from "./sql/rescue-lapsed";
import { logger } from "@/lib/logging/logger";

/** A lapsed claim is left this long to its own job's re-run (after a dead worker's jobs are released). */
const LAPSED_GRACE_SECONDS = 60;
/** A pending delivery is looked at for a lost job only once it has waited this long past its due time. */
const ORPHAN_GRACE_SECONDS = 120;

export async function rescueDeliveries({ sql = getSql() }: { sql?: postgres.Sql } = {}): Promise<{ lapsed: number; orphaned: number; recounted: number; woken: number }> {
  const settings = deliverySettings();
  const lapsed = await sql.begin(async (tx) => {
    const rows = await RESCUE_LAPSED(tx, { graceSeconds: LAPSED_GRACE_SECONDS });
    await enqueueRaw(tx, rows.map((row) => deliverJobSpec({ deliveryId: row.id, destinationId: row.destination_id, trigger: "auto", unkeyed: true })));
    return rows;
  });
  for (const row of lapsed) logDelivery({ deliveryId: row.id, endpointId: row.endpoint_id, destinationId: row.destination_id }, "its claim lapsed without an outcome; attempting again", "problem");

  // Under the slot lock no claim can run, so the count of `delivering` rows is the truth (an attempt
  // ending meanwhile can only make the count one too high for a minute: the cautious side).
  let recounted = 0;
  const counted = await sql<{ destination_id: string }[]>`
    select distinct destination_id from destination_slots where in_flight > 0
    union select distinct destination_id from deliveries where status = 'delivering'`;
  for (const { destination_id: destinationId } of counted) {
    const fixed = await sql.begin(async (tx) => {
      await lockDestinationSlots(rawRunner(tx), destinationId);
      // A finish frees its slot without that lock, in the statement that settles its delivery: hold the slot
      // rows first, so the count below (a snapshot taken after this) sees that finish wholly or not at all.
      // Counted while it was in flight, its slot was set back one too many, leaking it until the next sweep.
      await tx`select 1 from destination_slots where destination_id = ${destinationId} order by shard for update`;
      // Every shard, to what its jobs' delivering rows say.
      return tx<{ shard: number; in_flight: number }[]>`
        insert into destination_slots (destination_id, shard, organization_id, in_flight)
        select e.id, shards.shard, e.organization_id, coalesce(truth.n, 0)
        from destinations e
        cross join generate_series(0, ${SHARD_MASK}) as shards(shard)
        left join (
          select (hashtext(d.claimed_by_job) & ${SHARD_MASK}) as shard, count(*)::int as n
          from deliveries d where d.destination_id = ${destinationId} and d.status = 'delivering' group by 1
        ) truth on truth.shard = shards.shard
        where e.id = ${destinationId}
          and (truth.n > 0 or exists (select 1 from destination_slots s where s.destination_id = e.id and s.shard = shards.shard))
        on conflict (destination_id, shard) do update set in_flight = excluded.in_flight
        where destination_slots.in_flight <> excluded.in_flight
        returning shard, in_flight`;
    });
    if (fixed.length > 0) logger.warn({ destinationId }, `[rescue-deliveries] destination ${destinationId}: attempts in flight recounted in ${fixed.length} shard(s)`);
    recounted += fixed.length > 0 ? 1 : 0;
  }

  const orphaned = await sql.begin((tx) => requeueOrphans(tx, settings.orphanWalk));
  for (const row of orphaned) logDelivery({ deliveryId: row.id, endpointId: row.endpoint_id, destinationId: row.destination_id }, "pending without a job that can run; queued again", "problem");

  // Active destinations with something parked, one probe of the parked index each: a paused destination's
  // backlog is not read.
  let woken = 0;
  const parked = await sql<{ destination_id: string }[]>`
    select e.id as destination_id from destinations e
    where not e.paused and exists (select 1 from parked_deliveries pk where pk.destination_id = e.id)`;
  for (const { destination_id: destinationId } of parked) {
    const floor = await floorOfDestinations(sql, [destinationId]);
    const ids = await sql.begin(async (tx) => {
      const run = rawRunner(tx);
      await lockDestinationSlots(run, destinationId);
      return wakeParkedDeliveries(run, { destinationId, caps: settings, floor });
    });
    for (const id of ids) logDelivery({ deliveryId: id, destinationId }, "woken by the rescue sweep");
    woken += ids.length;
  }
  // A destination stops waiting for its organization's slots once nothing is parked there. Only here,
  // not in the hot path: a row removed just as a claim parks loses that park's wake-up, and this
  // sweep's own wake-ups (above, next minute) are what find it then.
  await sql`
    delete from org_waiting_destinations w
    where not exists (select 1 from deliveries p where p.destination_id = w.destination_id and p.parked_at is not null)`;
  return { lapsed: lapsed.length, orphaned: orphaned.length, recounted, woken };
}

/**
 * Pending, not parked, due a while ago, and no job for it that graphile-worker would still run: given a job
 * again. Each endpoint's open deliveries are read `walk` at a time, in the order of
 * deliveries_endpoint_waiting_idx, from where the last sweep stopped (orphan_scan_cursors), round to the
 * oldest again at the end. So a sweep costs at most `walk` rows an endpoint however long a tenant's backlog
 * (a destination down for days), and a delivery deep in a backlog of B is found within B / `walk` minutes.
 * An endpoint whose destinations are all paused is not read, and a delivery for a paused destination is not given
 * a job (nothing is attempted for it until a resume; one that lost its job is found after the resume). Exported
 * for its test, which counts its reads.
 */
export async function requeueOrphans(tx: postgres.TransactionSql, walk: number): Promise<{ id: string; destination_id: string; endpoint_id: string }[]> {
  const candidates = await tx<{ id: string }[]>`
    with walked as (
      select e.id as endpoint_id, o.id, o.pending_since, o.overdue and not o.paused as overdue,
        count(*) over (partition by e.id) as walked,
        row_number() over (partition by e.id order by o.pending_since desc, o.id desc) as from_last
      from endpoints e
      -- Its organization's delivery id floor (lib/storage/delivery-id-floor.ts): each walk is pruned as it runs
      -- to the weeks that organization holds, not every week another keeps.
      join organizations org on org.id = e.organization_id
      left join orphan_scan_cursors c on c.endpoint_id = e.id
      cross join lateral (
        select o.id, o.pending_since,
          o.status = 'pending' and o.parked_at is null
            and coalesce(o.next_attempt_at, o.updated_at) < now() - make_interval(secs => ${ORPHAN_GRACE_SECONDS}) as overdue,
          exists (select 1 from destinations dst where dst.id = o.destination_id and dst.paused) as paused
        from deliveries o
        where o.endpoint_id = e.id and o.id >= org.delivery_id_floor and o.status in ('pending', 'delivering')
          and o.pending_since >= coalesce(c.pending_since, '-infinity')
          and (o.pending_since, o.id) > (coalesce(c.pending_since, '-infinity'), coalesce(c.delivery_id, ''))
        order by o.pending_since, o.id
        limit ${walk}) o
      -- An endpoint whose every destination is paused is not read: nothing is attempted for it until a resume.
      where exists (select 1 from destinations dst where dst.endpoint_id = e.id and not dst.paused)
    ),
    moved_on as (
      insert into orphan_scan_cursors (endpoint_id, pending_since, delivery_id)
      select endpoint_id, pending_since, id from walked where from_last = 1 and walked = ${walk}
      on conflict (endpoint_id) do update set pending_since = excluded.pending_since, delivery_id = excluded.delivery_id
    ),
    round_again as (
      delete from orphan_scan_cursors c
      where exists (select 1 from destinations dst where dst.endpoint_id = c.endpoint_id and not dst.paused)
        and not exists (select 1 from walked w where w.endpoint_id = c.endpoint_id and w.walked = ${walk})
    )
    -- The usual job carries its delivery's key: a probe of the key index clears most candidates.
    select id from walked where overdue and not ${tx.unsafe(hasRunnableKeyedJobSql("walked.id"))}`;
  if (candidates.length === 0) return [];
  // Left: no job under the key. A re-queued job has none; REQUEUE_ORPHANS reads the jobs once, by payload, for those.
  const rows = await REQUEUE_ORPHANS(tx, { ids: candidates.map((c) => c.id), graceSeconds: ORPHAN_GRACE_SECONDS });
  await enqueueRaw(tx, rows.map((row) => deliverJobSpec({ deliveryId: row.id, destinationId: row.destination_id, trigger: "auto", unkeyed: true })));
  return rows;
}
