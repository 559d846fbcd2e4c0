import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import { getEndpointRowOrThrow } from "./get-endpoint-or-throw";

export interface EndpointStats {
  pending: number;
  delivering: number;
  delivered: number;
  dead: number;
  oldestPendingAgeSeconds: number;
  receivedLastHour: number;
  deliveredLastHour: number;
}

/**
 * Counts by status, the age of the oldest open delivery (since its receipt or latest replay, pending_since; 0
 * when none), last-hour traffic, none of them by counting the endpoint's deliveries, however many it holds,
 * waits on or buried. They come from the counters the triggers keep (the view endpoint_delivery_counts, migration
 * 0024: held, delivered, dead), read in the stats' one snapshot with the rest; what is left of what it holds is
 * open, statuses being exactly those four. Of the open ones, those delivering are counted (as many as its
 * destinations' concurrency caps, by deliveries_destination_in_flight_idx), and the oldest is the first entry of deliveries_endpoint_waiting_idx. The last
 * hour's received and delivered are the counter events of the last hour, summed per minute by the roll-up (so
 * "the last hour" is the minutes that began in it: 59 to 60 minutes back) and read as they are for the minute not
 * folded yet; a delivery delivered twice (a replay) counts twice, as in /api/metrics. The endpoint was checked to
 * be the organization's, and a delivery's organization is always its endpoint's, so filtering on the endpoint is
 * enough.
 */
export async function getEndpointStats({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<EndpointStats> {
  const endpoint = await getEndpointRowOrThrow({ ctx, input });
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  const [row] = await ctx.db.execute<Record<keyof EndpointStats, string | number>>(sql`
    select
      coalesce(counted.held - counted.delivered - counted.dead, 0) - delivering.count as "pending",
      delivering.count as "delivering",
      coalesce(counted.delivered, 0) as "delivered",
      coalesce(counted.dead, 0) as "dead",
      coalesce(floor(extract(epoch from now() - oldest.pending_since)), 0) as "oldestPendingAgeSeconds",
      last_hour.received as "receivedLastHour",
      last_hour.delivered as "deliveredLastHour"
    from
      -- Through its destinations: deliveries_destination_in_flight_idx holds only the deliveries in flight.
      (select count(*) from deliveries where destination_id in (select id from destinations where endpoint_id = ${endpoint.id})
        and id >= ${idFloor} and status = 'delivering') delivering,
      (select min(pending_since) as pending_since from deliveries where endpoint_id = ${endpoint.id} and id >= ${idFloor} and status in ('pending', 'delivering')) oldest,
      (select coalesce(sum(count) filter (where event = 'received'), 0) as received,
              coalesce(sum(count) filter (where event = 'delivered'), 0) as delivered from (
        select event, count from delivery_counts_by_minute
        where endpoint_id = ${endpoint.id} and event in ('received', 'delivered') and minute > now() - interval '1 hour'
        union all
        select event, count from delivery_counter_events
        where endpoint_id = ${endpoint.id} and event in ('received', 'delivered') and at > now() - interval '1 hour'
      ) recent) last_hour
      -- No row before the endpoint's first delivery.
      left join endpoint_delivery_counts counted on counted.endpoint_id = ${endpoint.id}`);
  return Object.fromEntries(Object.entries(row!).map(([key, value]) => [key, Math.max(0, Number(value))])) as unknown as EndpointStats;
}
