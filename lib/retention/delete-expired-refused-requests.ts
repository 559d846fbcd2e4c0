import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { retentionCutoff } from "./retention-cutoff";

/**
 * Deletes at most `limit` of ctx's organization's refused requests (rejected_requests: time, reason,
 * source address, header names) older than its retention; returns how many. Found endpoint by endpoint
 * (rejected_requests (endpoint_id, at desc)); ingest already keeps only the newest 100 per endpoint.
 */
export async function deleteExpiredRefusedRequests({ ctx, input }: { ctx: Ctx; input: { limit: number } }): Promise<number> {
  const rows = await ctx.db.execute<{ n: number }>(sql`
    with gone as (
      delete from rejected_requests where id = any(array(
        select r.id from endpoints e
        join rejected_requests r on r.endpoint_id = e.id
        where e.organization_id = ${ctx.organizationId}
          and r.organization_id = ${ctx.organizationId}
          and r.at < ${retentionCutoff(ctx.organizationId)}
        limit ${input.limit}
        for update of r skip locked))
      returning 1
    )
    select count(*)::int as n from gone`);
  return Number(rows[0]?.n ?? 0);
}
