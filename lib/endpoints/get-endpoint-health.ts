// What the endpoint page leads with (#47): its success rate over the last 24 hours (delivered ÷ (delivered +
// failed), as the overview's), how long its oldest pending delivery has waited, and its last error: the latest
// failure reason any of its destinations recorded (FINISH's circuit breaker keeps it, lib/delivery/engine/sql/
// finish.ts), and whether that destination is failing still. No delivery is counted: the traffic series' counts,
// the stats' oldest-waiting probe and the destinations' rows.
import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { getEndpointStats } from "./get-endpoint-stats";
import { getTrafficSeries } from "./get-traffic-series";

export interface EndpointHealth {
  /** delivered ÷ (delivered + failed) of the deliveries received in the last 24 hours; null when none has settled. */
  successRate: number | null;
  delivered: number;
  failed: number;
  oldestPendingAgeSeconds: number;
  pending: number;
  lastError: { reason: string; destinationName: string; failingSince: string | null; consecutiveFailures: number } | null;
}

type LastErrorRow = { reason: string; destinationName: string; failingSince: Date | string | null; consecutiveFailures: number };

export async function getEndpointHealth({ ctx, input }: { ctx: Ctx; input: { id: string; now?: Date } }): Promise<EndpointHealth> {
  const stats = await getEndpointStats({ ctx, input: { id: input.id } }); // not found for another organization's id
  const day = await getTrafficSeries({ ctx, input: { range: "24h", endpointId: input.id, now: input.now } });
  // A failing destination first, the one failing longest; else the one whose failure is most recent we cannot tell
  // (a success keeps the reason, not its time): the default destination's, then by name.
  const [lastError] = await ctx.db.execute<LastErrorRow>(sql`
    select last_failure_reason as "reason", name as "destinationName", failing_since as "failingSince", consecutive_failures as "consecutiveFailures"
    from destinations
    where endpoint_id = ${input.id} and organization_id = ${ctx.organizationId} and last_failure_reason is not null
    order by failing_since is null, failing_since, is_default desc, name
    limit 1`);
  return {
    successRate: day.totals.successRate,
    delivered: day.totals.delivered,
    failed: day.totals.failed,
    oldestPendingAgeSeconds: stats.oldestPendingAgeSeconds,
    pending: stats.pending + stats.delivering,
    lastError: lastError
      ? {
        reason: lastError.reason,
        destinationName: lastError.destinationName,
        failingSince: lastError.failingSince === null ? null : new Date(lastError.failingSince).toISOString(),
        consecutiveFailures: Number(lastError.consecutiveFailures),
      }
      : null,
  };
}
