// Folds delivery_counter_events (written by triggers on deliveries: deliveries stored and deleted, deliveries that
// became delivered or dead, or stopped being so) into delivery_counters, so what /api/metrics reads stays small,
// received and delivered into delivery_counts_by_minute for an endpoint's last-hour stats and the overview's
// last 24 hours, and open, dead, buried and retrying there by receipt minute for the overview's hours; the same
// per hour into delivery_counts_by_hour (kept 31 days) for the charts, with the delivered deliveries' latency.
// One statement: the rows it deletes are exactly the ones it adds, and a concurrent run skips the rows this one
// took. Events of endpoints deleted meanwhile are dropped.
import type postgres from "postgres";
import { getSql } from "@/db";

/** Per-minute counts are kept this long: an endpoint's stats read the last hour, the overview the last 24 (OVERVIEW_HOURS). */
const KEPT_MINUTES = 25 * 60;
/** Per-hour counts are kept this long: the charts' longest range is 30 days (lib/endpoints/get-traffic-series.ts). */
const KEPT_DAYS = 31;

/** Run every minute by the worker (jobs/roll-up-delivery-counters.ts); returns how many event rows it folded. */
export async function rollUpDeliveryCounters({ sql = getSql() }: { sql?: postgres.Sql } = {}): Promise<number> {
  const [row] = await sql<{ folded: string; zeros: { destination_id: string; event: string; minute: string }[] | null }[]>`
    with moved as (
      delete from delivery_counter_events returning endpoint_id, organization_id, destination_id, event, attempts, count, at, received_minute
    ), counted as (
      select m.endpoint_id, m.destination_id, m.event, date_trunc('minute', m.at) as minute, m.count from moved m
      where m.event in ('received', 'delivered', 'filtered', 'latency_ms') and m.at > now() - make_interval(days => ${KEPT_DAYS})
      union all
      select m.endpoint_id, m.destination_id, r.counted, m.received_minute, r.n from moved m cross join lateral inbox_receipt_count(m.event, m.count) r
      where m.received_minute > now() - make_interval(days => ${KEPT_DAYS})
    ), by_minute as (
      insert into delivery_counts_by_minute (endpoint_id, destination_id, event, minute, count)
      select endpoint_id, destination_id, event, minute, sum(count) from counted
      where minute > now() - make_interval(secs => ${KEPT_MINUTES * 60}) and exists (select 1 from endpoints e where e.id = counted.endpoint_id)
      group by 1, 2, 3, 4
      having sum(count) <> 0
      order by 2, 3, 4
      on conflict (destination_id, event, minute) do update set count = delivery_counts_by_minute.count + excluded.count
      returning destination_id, event, minute, count
    ), by_hour as (
      -- The same counts per hour, for the week's and month's charts.
      insert into delivery_counts_by_hour (endpoint_id, destination_id, event, hour, count)
      select endpoint_id, destination_id, event, date_trunc('hour', minute), sum(count) from counted
      where exists (select 1 from endpoints e where e.id = counted.endpoint_id)
      group by 1, 2, 3, 4
      having sum(count) <> 0
      order by 2, 3, 4
      on conflict (destination_id, event, hour) do update set count = delivery_counts_by_hour.count + excluded.count
      returning 1
    ), summed as (
      -- retrying and buried are the overview's, by receipt minute only, latency the charts' (above).
      select endpoint_id, organization_id, destination_id, event, attempts, sum(count) as count from moved where event not in ('retrying', 'buried', 'latency_ms') group by 1, 2, 3, 4, 5
    ), added as (
      insert into delivery_counters (endpoint_id, organization_id, destination_id, event, attempts, count)
      select s.endpoint_id, s.organization_id, s.destination_id, s.event, s.attempts, s.count from summed s
      where exists (select 1 from endpoints e where e.id = s.endpoint_id)
      order by s.destination_id, s.event, s.attempts
      on conflict (destination_id, event, attempts) do update set count = delivery_counters.count + excluded.count
      returning 1
    )
    select (select count(*) from moved) as folded, (select count(*) from added) as groups, (select count(*) from by_hour) as hours,
      (select json_agg(json_build_object('destination_id', destination_id, 'event', event, 'minute', minute)) from by_minute where count = 0) as zeros`;
  // A minute whose deliveries are all settled counts 0 open: no row, so a healthy endpoint's overview reads its
  // received counts alone. Removed in a statement of its own (one statement sees not its own upsert's rows),
  // and only while still 0: absent and 0 read the same.
  const zeros = row!.zeros ?? [];
  if (zeros.length > 0) {
    await sql`delete from delivery_counts_by_minute c using json_to_recordset(${JSON.stringify(zeros)}::text::json) z(destination_id text, event text, minute timestamptz)
      where c.destination_id = z.destination_id and c.event = z.event and c.minute = z.minute and c.count = 0`;
  }
  await sql`delete from delivery_counts_by_minute where minute < now() - make_interval(secs => ${KEPT_MINUTES * 60})`;
  await sql`delete from delivery_counts_by_hour where hour < now() - make_interval(days => ${KEPT_DAYS})`;
  return Number(row!.folded);
}
