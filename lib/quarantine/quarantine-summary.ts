import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { quarantineSettings } from "./quarantine-settings";

export interface QuarantineSummary {
  /** Requests in the quarantine now. */
  kept: number;
  /** Refused requests counted but not kept (over the per-source or per-endpoint rate), ever. */
  notKept: number;
  maxRequests: number;
  days: number;
}

/** How full an endpoint of ctx's organization's quarantine is (at most QUARANTINE_MAX_REQUESTS rows to count). */
export async function quarantineSummary({ ctx, input }: { ctx: Ctx; input: { endpointId: string } }): Promise<QuarantineSummary> {
  const [row] = await ctx.db.execute<{ kept: number; not_kept: string | null }>(sql`
    select (select count(*)::int from quarantined_requests q where q.endpoint_id = ${input.endpointId} and q.organization_id = ${ctx.organizationId}) as kept,
           (select h.not_kept from quarantine_heads h where h.endpoint_id = ${input.endpointId} and h.organization_id = ${ctx.organizationId}) as not_kept`);
  const { maxRequests, days } = quarantineSettings();
  return { kept: Number(row?.kept ?? 0), notKept: Number(row?.not_kept ?? 0), maxRequests, days };
}
