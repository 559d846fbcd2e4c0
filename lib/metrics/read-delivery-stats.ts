// An endpoint's or one destination's stats in one statement (GET …/stats): counts by status, the oldest pending
// age and the last hour's traffic, none of them by counting deliveries, however many it holds, waits on or buried.
//   held, delivered, dead   the counters the triggers keep (the views endpoint_delivery_counts and
//                           destination_delivery_counts): what is left of what it holds is open, statuses being
//                           exactly those four (filtered requests are none of its deliveries);
//   delivering              counted by deliveries_destination_in_flight_idx (as many as the destinations' caps);
//   oldest pending age      since receipt or latest replay (pending_since; 0 when none): the first entry of
//                           deliveries_endpoint_waiting_idx, or of deliveries_destination_waiting_idx;
//   last hour               the counter events of the last hour, summed per minute by the roll-up (so "the last
//                           hour" is the minutes that began in it) and read as they are for the minute not folded
//                           yet; a delivery delivered twice (a replay) counts twice, as in /api/metrics.
// The caller has checked the endpoint (and destination) to be the organization's, and a delivery's organization
// is always its endpoint's, so filtering on the endpoint or destination is enough.
import { sql, type SQL } from "drizzle-orm";
import type { Ctx } from "@/lib/context";

export interface DeliveryStats {
  pending: number;
  delivering: number;
  delivered: number;
  dead: number;
  oldestPendingAgeSeconds: number;
  receivedLastHour: number;
  deliveredLastHour: number;
}

/** Whose stats: an endpoint's (all its destinations), or one destination's of that endpoint. */
export type StatsScope = { endpointId: string; destinationId?: undefined } | { endpointId: string; destinationId: string };

function scopeSql(scope: StatsScope) {
  const { endpointId, destinationId } = scope;
  if (destinationId === undefined) {
    return {
      counted: sql`endpoint_delivery_counts counted on counted.endpoint_id = ${endpointId}`,
      // Through its destinations: deliveries_destination_in_flight_idx holds only the deliveries in flight.
      inFlight: sql`destination_id in (select id from destinations where endpoint_id = ${endpointId})`,
      waiting: sql`endpoint_id = ${endpointId}`,
      minutes: sql`endpoint_id = ${endpointId}`,
      events: sql`endpoint_id = ${endpointId}`,
    };
  }
  return {
    counted: sql`destination_delivery_counts counted on counted.destination_id = ${destinationId}`,
    inFlight: sql`destination_id = ${destinationId}`,
    waiting: sql`destination_id = ${destinationId}`,
    minutes: sql`destination_id = ${destinationId}`,
    // delivery_counter_events' one index is by endpoint.
    events: sql`endpoint_id = ${endpointId} and destination_id = ${destinationId}`,
  };
}

export async function readDeliveryStats(ctx: Ctx, scope: StatsScope, idFloor: string): Promise<DeliveryStats> {
  const where = scopeSql(scope);
  const recent = (events: SQL) => sql`
    select event, count from delivery_counts_by_minute
    where ${where.minutes} and event in ('received', 'delivered') and minute > now() - interval '1 hour'
    union all
    select event, count from delivery_counter_events
    where ${events} and event in ('received', 'delivered') and at > now() - interval '1 hour'`;
  const [row] = await ctx.db.execute<Record<keyof DeliveryStats, string | number>>(sql`
    select
      coalesce(counted.held - counted.delivered - counted.dead, 0) - delivering.count as "pending",
      delivering.count as "delivering",
      coalesce(counted.delivered, 0) as "delivered",
      coalesce(counted.dead, 0) as "dead",
      coalesce(floor(extract(epoch from now() - oldest.pending_since)), 0) as "oldestPendingAgeSeconds",
      last_hour.received as "receivedLastHour",
      last_hour.delivered as "deliveredLastHour"
    from
      (select count(*) from deliveries where ${where.inFlight} and id >= ${idFloor} and status = 'delivering') delivering,
      (select min(pending_since) as pending_since from deliveries where ${where.waiting} and id >= ${idFloor} and status in ('pending', 'delivering')) oldest,
      (select coalesce(sum(count) filter (where event = 'received'), 0) as received,
              coalesce(sum(count) filter (where event = 'delivered'), 0) as delivered from (${recent(where.events)}) recent) last_hour
      -- No row before the first delivery.
      left join ${where.counted}`);
  return Object.fromEntries(Object.entries(row!).map(([key, value]) => [key, Math.max(0, Number(value))])) as unknown as DeliveryStats;
}
