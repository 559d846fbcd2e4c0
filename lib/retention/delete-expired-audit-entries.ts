import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";

/** API.md: audit entries are kept 365 days, whatever the organization's retentionDays. */
export const AUDIT_RETENTION_DAYS = 365;

/**
 * Deletes at most `limit` of ctx's organization's audit entries written more than 365 days ago,
 * oldest first; returns how many. The append-only trigger (migration 0017) lets exactly these go,
 * by the same clock (the transaction's now()).
 */
export async function deleteExpiredAuditEntries({ ctx, input }: { ctx: Ctx; input: { limit: number } }): Promise<number> {
  const rows = await ctx.db.execute<{ n: number }>(sql`
    with gone as (
      delete from audit_log where id = any(array(
        select a.id from audit_log a
        where a.organization_id = ${ctx.organizationId}
          and a.at < now() - make_interval(days => ${AUDIT_RETENTION_DAYS}::int)
        order by a.at nulls first -- audit_log_org_at_idx (at desc nulls last) walked backward: no sort
        limit ${input.limit}
        for update skip locked))
      returning 1
    )
    select count(*)::int as n from gone`);
  return Number(rows[0]?.n ?? 0);
}
