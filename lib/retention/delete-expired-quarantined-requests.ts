import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { quarantineSettings } from "@/lib/quarantine/quarantine-settings";

/**
 * Deletes at most `limit` of ctx's organization's quarantined requests received longer ago than
 * QUARANTINE_DAYS (7), or than its retention when that is shorter; returns how many. Oldest first by
 * quarantined_requests (organization_id, received_at); the quarantine's bounds already keep each
 * endpoint's share small.
 */
export async function deleteExpiredQuarantinedRequests({ ctx, input }: { ctx: Ctx; input: { limit: number } }): Promise<number> {
  const rows = await ctx.db.execute<{ n: number }>(sql`
    with gone as (
      delete from quarantined_requests where (endpoint_id, seq) in (
        select q.endpoint_id, q.seq from quarantined_requests q
        where q.organization_id = ${ctx.organizationId} and q.received_at < ${quarantineCutoff(ctx.organizationId)}
        order by q.received_at
        limit ${input.limit}
        for update skip locked)
      returning 1
    )
    select count(*)::int as n from gone`);
  return Number(rows[0]?.n ?? 0);
}

/** Received before this, a quarantined request has expired (database clock, read in the statement). */
function quarantineCutoff(organizationId: string) {
  return sql`(now() - make_interval(days => least(${quarantineSettings().days}::int,
    (select o.retention_days from organizations o where o.id = ${organizationId}))))`;
}
