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
 * when none), last-hour traffic.
 * Each figure is read from an index alone, so the cost follows the backlog and the last hour, plus one
 * index-only count of the endpoint's deliveries (delivered = all − pending − delivering − dead, statuses
 * being exactly those four). The endpoint was checked to be the organization's, and a delivery's
 * organization is always its endpoint's, so filtering on the endpoint is enough (and keeps the scans index-only).
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
      (select count(*) from deliveries where endpoint_id = ${endpoint.id} and received_at > now() - interval '1 hour') as "receivedLastHour",
      (select count(*) from deliveries where endpoint_id = ${endpoint.id} and delivered_at > now() - interval '1 hour') as "deliveredLastHour"
    from
      (select count(*) from deliveries where endpoint_id = ${endpoint.id}) total,
      (select count(*), min(pending_since) as oldest from deliveries where endpoint_id = ${endpoint.id} and status in ('pending', 'delivering')) open,
      (select count(*) from deliveries where endpoint_id = ${endpoint.id} and status = 'delivering') delivering,
      (select count(*) from deliveries where endpoint_id = ${endpoint.id} and status = 'dead') dead`);
  return Object.fromEntries(Object.entries(row!).map(([key, value]) => [key, Math.max(0, Number(value))])) as unknown as EndpointStats;
}
