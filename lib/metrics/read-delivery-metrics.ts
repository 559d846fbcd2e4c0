// The database's side of /api/metrics, per endpoint and per destination (every organization: this is the
// operator's view). Nothing here grows with the deliveries table:
//   received, delivered, dead, attempts per delivery   delivery_counters plus the events not folded in yet
//              (written by triggers on deliveries when they happen; see lib/metrics/roll-up-delivery-counters.ts),
//              per destination; an endpoint's are their sums;
//   pending    what an endpoint (a destination) holds less its delivered and dead (the views
//              endpoint_delivery_counts, destination_delivery_counts, from the same counters), less those delivering;
//   delivering, oldest pending age   deliveries_destination_in_flight_idx (as many as the destinations' caps) and
//              the first entry of deliveries_endpoint_waiting_idx (deliveries_destination_waiting_idx). The age
//              counts from pending_since: the receipt, or the latest replay (API.md).
// A deleted destination has no series of its own; its endpoint's figures keep what it did.
import type postgres from "postgres";
import { getSql } from "@/db";

export interface LaneMetrics {
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
export type EndpointMetrics = LaneMetrics;
export interface DestinationMetrics extends LaneMetrics {
  destinationId: string;
}

type Event = "received" | "delivered" | "dead";
type OpenRow = { endpoint_id: string; destination_id: string; organization_id: string; open: string; delivering: string; oldest_age: string };

const lane = (row: OpenRow): LaneMetrics => {
  const open = Number(row.open);
  const delivering = Number(row.delivering);
  return {
    endpointId: row.endpoint_id, organizationId: row.organization_id, received: 0, delivered: 0, dead: 0,
    pending: open - delivering, delivering, oldestPendingAgeSeconds: Number(row.oldest_age), outcomesByAttempts: new Map(),
  };
};

function count(metrics: LaneMetrics | undefined, event: Event, attempts: number, n: number) {
  if (!metrics) return; // deleted (the endpoint: the next roll-up drops its events; a destination: its endpoint keeps them)
  metrics[event] += n;
  if (event !== "received") metrics.outcomesByAttempts.set(attempts, (metrics.outcomesByAttempts.get(attempts) ?? 0) + n);
}

export async function readDeliveryMetrics({ sql = getSql() }: { sql?: postgres.Sql } = {}): Promise<{ endpoints: EndpointMetrics[]; destinations: DestinationMetrics[] }> {
  return sql.begin("isolation level repeatable read read only", async (tx) => {
    // Each endpoint's deliveries from its organization's delivery id floor on (lib/storage/delivery-id-floor.ts).
    const endpoints = await tx<OpenRow[]>`
      select e.id as endpoint_id, null as destination_id, e.organization_id,
        coalesce(counted.held - counted.delivered - counted.dead, 0) as open,
        (select count(*) from deliveries d where d.destination_id in (select dst.id from destinations dst where dst.endpoint_id = e.id)
          and d.id >= org.delivery_id_floor and d.status = 'delivering') as delivering,
        coalesce(greatest(0, floor(extract(epoch from now() - (
          select min(d.pending_since) from deliveries d where d.endpoint_id = e.id and d.id >= org.delivery_id_floor
            and d.status in ('pending', 'delivering'))))), 0) as oldest_age
      from endpoints e join organizations org on org.id = e.organization_id
      left join endpoint_delivery_counts counted on counted.endpoint_id = e.id
      order by e.organization_id, e.id`;
    const destinations = await tx<OpenRow[]>`
      select dst.endpoint_id, dst.id as destination_id, dst.organization_id,
        coalesce(counted.held - counted.delivered - counted.dead, 0) as open,
        (select count(*) from deliveries d where d.destination_id = dst.id and d.id >= org.delivery_id_floor and d.status = 'delivering') as delivering,
        coalesce(greatest(0, floor(extract(epoch from now() - (
          select min(d.pending_since) from deliveries d where d.destination_id = dst.id and d.id >= org.delivery_id_floor
            and d.status in ('pending', 'delivering'))))), 0) as oldest_age
      from destinations dst join organizations org on org.id = dst.organization_id
      left join destination_delivery_counts counted on counted.destination_id = dst.id
      where dst.deleted_at is null
      order by dst.organization_id, dst.endpoint_id, dst.id`;
    const counters = await tx<{ endpoint_id: string; destination_id: string; event: Event; attempts: number; count: string }[]>`
      select endpoint_id, destination_id, event, attempts, sum(count) as count from (
        select endpoint_id, destination_id, event, attempts, count from delivery_counters
        union all
        select endpoint_id, destination_id, event, attempts, count from delivery_counter_events
      ) counters
      where event in ('received', 'delivered', 'dead')
      group by 1, 2, 3, 4`;
    const byEndpoint = new Map(endpoints.map((row) => [row.endpoint_id, lane(row)]));
    const byDestination = new Map(destinations.map((row) => [row.destination_id, { ...lane(row), destinationId: row.destination_id }]));
    for (const row of counters) {
      count(byEndpoint.get(row.endpoint_id), row.event, row.attempts, Number(row.count));
      count(byDestination.get(row.destination_id), row.event, row.attempts, Number(row.count));
    }
    return { endpoints: [...byEndpoint.values()], destinations: [...byDestination.values()] };
  });
}
