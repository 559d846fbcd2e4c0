// Each organization's delivery id floor (organizations.delivery_id_floor): an id at or below every delivery it
// holds. The dashboard's and the API's queries that name no delivery id name it (`d.id >= floor`), so PostgreSQL
// plans and reads only the partitions from the floor's week on: an organization that keeps a year (~53 weekly
// partitions of each table) pays for that year in its own queries, and one that keeps 30 days plans its ~6
// weeks whoever else keeps what (a deliveries page's plan over 55 partitions ~6 ms, over 6 ~0.4 ms; docs/performance.md).
//
// refreshDeliveryIdFloors sets it, every hour (jobs/delivery-partitions.ts) and after a week is dropped
// (lib/retention/apply-retention.ts). Until the first refresh it is '', which names every partition.
import { eq } from "drizzle-orm";
import type postgres from "postgres";
import { getSql, type DbOrTx } from "@/db";
import { organizations } from "@/db/schema";

/**
 * How far behind the database's clock a clock that makes delivery ids may be (ids begin with the time they
 * were made, lib/ids.ts): a floor is never above the id of that long before its refresh, so a delivery made
 * after the refresh is above it.
 */
const CLOCK_MARGIN = "1 day";

/** The floor of the organization's delivery ids ('' when not known yet: no partition left out). */
export async function deliveryIdFloor(db: DbOrTx, organizationId: string): Promise<string> {
  const [row] = await db.select({ floor: organizations.deliveryIdFloor }).from(organizations).where(eq(organizations.id, organizationId));
  return row?.floor ?? "";
}

/** Organizations refreshed per statement: each holds its changed rows' locks only while it runs. */
const REFRESH_BATCH = 200;

/**
 * Sets every organization's floor to the least of: where the oldest partition holding one of its deliveries
 * begins ('' for the legacy partition, which begins at MINVALUE); its least id in the default partition (ids
 * whose week was never made, or was dropped); the id of CLOCK_MARGIN before `now` (database clock unless
 * given: tests and benches run ahead of the calendar). The partitions are probed oldest first from the
 * current floor's on, one index probe each (inbox_oldest_delivery_partition_start, migration 0030), stopping
 * at the first that holds one: an organization costs a probe or two an hour. REFRESH_BATCH organizations a
 * statement, so a settings change waits for a batch at most. Nothing lands below a floor meanwhile: a delivery
 * made now has an id above the margin's. Returns how many floors changed.
 */
export async function refreshDeliveryIdFloors({ sql = getSql(), now, batchSize = REFRESH_BATCH }: { sql?: postgres.Sql; now?: Date; batchSize?: number } = {}): Promise<number> {
  let changed = 0;
  for (let after = ""; ; ) {
    const [batch] = await sql<{ last: string | null; changed: number }[]>`
      with batch as (
        select o.id, o.delivery_id_floor from organizations o where o.id > ${after} order by o.id limit ${batchSize}
      ), bounds as (
        select c.relname::text as name,
          coalesce(substring(pg_get_expr(c.relpartbound, c.oid) from 'FROM \\(''([^'']+)''\\)'), '') collate "default" as from_id,
          substring(pg_get_expr(c.relpartbound, c.oid) from 'TO \\(''([^'']+)''\\)') collate "default" as to_id
        from pg_inherits i join pg_class c on c.oid = i.inhrelid
        where i.inhparent = 'deliveries'::regclass
      ), partitions as materialized (
        select array_agg(name order by to_id) as names, array_agg(from_id order by to_id) as froms, array_agg(to_id order by to_id) as tos
        from bounds where to_id is not null
      ), margin as (
        select inbox_time_ordered_id_floor('dlv', coalesce(${now ?? null}::timestamptz, now()) - ${CLOCK_MARGIN}::interval) as id
      ), floors as (
        select b.id, least(
          (select inbox_oldest_delivery_partition_start(b.id, b.delivery_id_floor, p.names, p.froms, p.tos) from partitions p),
          (select min(d.id) from deliveries_default d where d.organization_id = b.id),
          (select id from margin)) as floor
        from batch b
      ), updated as (
        update organizations o set delivery_id_floor = f.floor from floors f
        where f.id = o.id and o.delivery_id_floor is distinct from f.floor
        returning 1
      )
      select (select max(id) from batch) as last, (select count(*)::int from updated) as changed`;
    changed += batch?.changed ?? 0;
    if (!batch?.last) return changed;
    after = batch.last;
  }
}

/** How long the worker goes on using a floor it read (floorOfDestinations). */
const FLOOR_KEPT_MS = 60_000;
/** Destinations whose floor the worker keeps at most: past it, it forgets them all and reads again. */
const FLOORS_KEPT = 10_000;
const floorsByDestination = new Map<string, { floor: string; readAt: number }>();

/** A floor JavaScript orders as the database does: '' or a time-ordered delivery id (or its first digits). */
const ORDERED_FLOOR = /^(dlv_[0-9a-z]*)?$/;

/**
 * The least delivery id floor of the destinations' organizations, for a hot-path statement that picks deliveries
 * it cannot name beforehand (a destination's oldest parked ones): given as a parameter, `d.id >= $floor` is pruned
 * as the worker's generic plan starts, which leaves out the weeks below it; the same bound read from the table
 * inside the statement would be pruned only as it runs, after every week's partition has been opened (PostgreSQL
 * 15). Read once a minute per destination. A floor read earlier is never above the floor now, since floors only rise
 * (no delivery is made below one: refreshDeliveryIdFloors): it may read more weeks than it needs, never miss a row.
 * '' (every week) when a floor is not one JavaScript can order.
 */
export async function floorOfDestinations(sql: postgres.Sql | postgres.ReservedSql, destinationIds: readonly string[]): Promise<string> {
  let least: string | undefined;
  for (const floor of (await floorsOfDestinations(sql, destinationIds)).values()) if (least === undefined || floor < least) least = floor;
  return least ?? "";
}

/**
 * Each destination's floor, as floorOfDestinations reads and keeps them ('' when it is not one JavaScript can order);
 * a destination gone meanwhile (it has no deliveries left to pick) is left out.
 */
export async function floorsOfDestinations(sql: postgres.Sql | postgres.ReservedSql, destinationIds: readonly string[]): Promise<Map<string, string>> {
  const now = performance.now();
  const stale = destinationIds.filter((id) => !((floorsByDestination.get(id)?.readAt ?? -Infinity) > now - FLOOR_KEPT_MS));
  if (stale.length > 0) {
    const rows = await sql<{ id: string; floor: string }[]>`
      select e.id, o.delivery_id_floor as floor from destinations e join organizations o on o.id = e.organization_id
      where e.id = any(${stale}::text[])`;
    if (floorsByDestination.size + rows.length > FLOORS_KEPT) floorsByDestination.clear();
    for (const row of rows) floorsByDestination.set(row.id, { floor: ORDERED_FLOOR.test(row.floor) ? row.floor : "", readAt: now });
  }
  const floors = new Map<string, string>();
  for (const id of destinationIds) {
    const kept = floorsByDestination.get(id);
    if (kept) floors.set(id, kept.floor);
  }
  return floors;
}
