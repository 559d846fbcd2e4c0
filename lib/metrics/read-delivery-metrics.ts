// The database's side of /api/metrics, per endpoint (every organization: this is the operator's view).
// Nothing here grows with the deliveries table:
//   received, delivered, dead, attempts per delivery   delivery_counters plus the events not folded in yet
//              (written by triggers on deliveries when they happen; see lib/metrics/roll-up-delivery-counters.ts);
//   pending    what an endpoint holds less its delivered and dead (the view endpoint_delivery_counts, from the
//              same counters), less those delivering;
//   delivering, oldest pending age   deliveries_destination_in_flight_idx (as many as the destinations' caps) and
//              the first entry of deliveries_endpoint_waiting_idx. The age counts from pending_since: the
//              receipt, or the latest replay (API.md).
import type postgres from "postgres";
import { getSql } from "@/db";

export interface EndpointMetrics {
  endpointId: string;
  organizationId: string;
  received: number;
  delivered: number;
  dead: number;
  pending: number;
  delivering: number;
  oldestPendingAgeSeconds: number;
  /** How many times a delivery became delivered or dead after exactly `attempts` attempts. */
  outcomesByAttempts: Map<number, number>;
}

type Event = "received" | "delivered" | "dead";

export async function readDeliveryMetrics({ sql = getSql() }: { sql?: postgres.Sql } = {}): Promise<EndpointMetrics[]> {
  return sql.begin("isolation level repeatable read read only", async (tx) => {
    const endpoints = await tx<{ endpoint_id: string; organization_id: string; open: string; delivering: string; oldest_age: string }[]>`
      select e.id as endpoint_id, e.organization_id,
        coalesce(counted.held - counted.delivered - counted.dead, 0) as open,
        (select count(*) from deliveries d where d.destination_id in (select dst.id from destinations dst where dst.endpoint_id = e.id)
          and d.id >= org.delivery_id_floor and d.status = 'delivering') as delivering,
        coalesce(greatest(0, floor(extract(epoch from now() - (
          select min(d.pending_since) from deliveries d where d.endpoint_id = e.id and d.id >= org.delivery_id_floor
            and d.status in ('pending', 'delivering'))))), 0) as oldest_age
      -- Each endpoint's deliveries from its organization's delivery id floor on (lib/storage/delivery-id-floor.ts).
      from endpoints e join organizations org on org.id = e.organization_id
      left join endpoint_delivery_counts counted on counted.endpoint_id = e.id
      order by e.organization_id, e.id`;
    const counters = await tx<{ endpoint_id: string; event: Event; attempts: number; count: string }[]>`
      select endpoint_id, event, attempts, sum(count) as count from (
        select endpoint_id, event, attempts, count from delivery_counters
        union all
        select endpoint_id, event, attempts, count from delivery_counter_events
      ) counters
      where event in ('received', 'delivered', 'dead')
      group by 1, 2, 3`;
    const byEndpoint = new Map<string, EndpointMetrics>();
    for (const row of endpoints) {
      const open = Number(row.open);
      const delivering = Number(row.delivering);
      byEndpoint.set(row.endpoint_id, {
        endpointId: row.endpoint_id, organizationId: row.organization_id, received: 0, delivered: 0, dead: 0,
        pending: open - delivering, delivering, oldestPendingAgeSeconds: Number(row.oldest_age), outcomesByAttempts: new Map(),
      });
    }
    for (const row of counters) {
      const metrics = byEndpoint.get(row.endpoint_id);
      if (!metrics) continue; // the endpoint was deleted; the next roll-up drops its events
      const count = Number(row.count);
      metrics[row.event] += count;
      if (row.event !== "received") metrics.outcomesByAttempts.set(row.attempts, (metrics.outcomesByAttempts.get(row.attempts) ?? 0) + count);
    }
    return [...byEndpoint.values()];
  });
}
