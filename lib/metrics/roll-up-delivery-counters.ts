// Folds delivery_counter_events (written by triggers on deliveries: deliveries stored, deliveries that became
// delivered or dead) into delivery_counters, so what /api/metrics reads stays small. One statement: the rows it
// deletes are exactly the ones it adds, and a concurrent run skips the rows this one took. Events of endpoints
// deleted meanwhile are dropped.
import type postgres from "postgres";
import { getSql } from "@/db";

/** Run every minute by the worker (jobs/roll-up-delivery-counters.ts); returns how many event rows it folded. */
export async function rollUpDeliveryCounters({ sql = getSql() }: { sql?: postgres.Sql } = {}): Promise<number> {
  const [row] = await sql<{ folded: string }[]>`
    with moved as (
      delete from delivery_counter_events returning endpoint_id, organization_id, event, attempts, count
    ), summed as (
      select endpoint_id, organization_id, event, attempts, sum(count) as count from moved group by 1, 2, 3, 4
    ), added as (
      insert into delivery_counters (endpoint_id, organization_id, event, attempts, count)
      select s.endpoint_id, s.organization_id, s.event, s.attempts, s.count from summed s
      where exists (select 1 from endpoints e where e.id = s.endpoint_id)
      order by s.endpoint_id, s.event, s.attempts
      on conflict (endpoint_id, event, attempts) do update set count = delivery_counters.count + excluded.count
      returning 1
    )
    select (select count(*) from moved) as folded, (select count(*) from added) as groups`;
  return Number(row!.folded);
}
