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

/** Counts by status, the age of the oldest open delivery (since receivedAt; 0 when none), last-hour traffic. */
export async function getEndpointStats({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<EndpointStats> {
  const endpoint = await getEndpointRowOrThrow({ ctx, input });
  const [row] = await ctx.db.execute<Record<keyof EndpointStats, string | number>>(sql`
    select
      count(*) filter (where status = 'pending') as "pending",
      count(*) filter (where status = 'delivering') as "delivering",
      count(*) filter (where status = 'delivered') as "delivered",
      count(*) filter (where status = 'dead') as "dead",
      coalesce(floor(extract(epoch from now() - min(received_at) filter (where status in ('pending', 'delivering')))), 0) as "oldestPendingAgeSeconds",
      count(*) filter (where received_at > now() - interval '1 hour') as "receivedLastHour",
      count(*) filter (where delivered_at > now() - interval '1 hour') as "deliveredLastHour"
    from deliveries
    where organization_id = ${ctx.organizationId} and endpoint_id = ${endpoint.id}`);
  return Object.fromEntries(Object.entries(row!).map(([key, value]) => [key, Math.max(0, Number(value))])) as unknown as EndpointStats;
}
