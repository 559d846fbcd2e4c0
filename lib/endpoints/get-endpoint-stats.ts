import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
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
 * when none), last-hour traffic. Nothing here counts the endpoint's settled deliveries, however many it holds:
 * how many it holds is received − removed from the counters the triggers keep (delivery_counters and the events
 * not folded in yet; lib/metrics/roll-up-delivery-counters.ts), read in the same snapshot as the rest, so
 * delivered = held − pending − delivering − dead, statuses being exactly those four. The last hour's received and
 * delivered are the counter events of the last hour, summed per minute by the roll-up (so "the last hour" is
 * the minutes that began in it: 59 to 60 minutes back) and read as they are for the minute not folded yet; a
 * delivery delivered twice (a replay) counts twice, as in /api/metrics. The backlog and the dead are read from
 * indexes alone. The endpoint was checked to be the organization's,
 * and a delivery's organization is always its endpoint's, so filtering on the endpoint is enough (and keeps the
 * scans index-only).
 */
export async function getEndpointStats({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<EndpointStats> {
  const endpoint = await getEndpointRowOrThrow({ ctx, input });
  const [row] = await ctx.db.execute<Record<keyof EndpointStats, string | number>>(sql`
    select
      open.count - delivering.count as "pending",
      delivering.count as "delivering",
      total.count - open.count - dead.count as "delivered",
      dead.count as "dead",
      coalesce(floor(extract(epoch from now() - open.oldest)), 0) as "oldestPendingAgeSeconds",
      last_hour.received as "receivedLastHour",
      last_hour.delivered as "deliveredLastHour"
    from
      (select coalesce(sum(case when event = 'received' then count else -count end), 0) as count from (
        select event, count from delivery_counters where endpoint_id = ${endpoint.id} and event in ('received', 'removed')
        union all
        select event, count from delivery_counter_events where endpoint_id = ${endpoint.id} and event in ('received', 'removed')
      ) counted) total,
      (select count(*), min(pending_since) as oldest from deliveries where endpoint_id = ${endpoint.id} and status in ('pending', 'delivering')) open,
      (select count(*) from deliveries where endpoint_id = ${endpoint.id} and status = 'delivering') delivering,
      (select count(*) from deliveries where endpoint_id = ${endpoint.id} and status = 'dead') dead,
      (select coalesce(sum(count) filter (where event = 'received'), 0) as received,
              coalesce(sum(count) filter (where event = 'delivered'), 0) as delivered from (
        select event, count from delivery_counts_by_minute
        where endpoint_id = ${endpoint.id} and event in ('received', 'delivered') and minute > now() - interval '1 hour'
        union all
        select event, count from delivery_counter_events
        where endpoint_id = ${endpoint.id} and event in ('received', 'delivered') and at > now() - interval '1 hour'
      ) recent) last_hour`);
  return Object.fromEntries(Object.entries(row!).map(([key, value]) => [key, Math.max(0, Number(value))])) as unknown as EndpointStats;
}
