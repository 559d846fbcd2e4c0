import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { retentionCutoff } from "./retention-cutoff";

/**
 * Deletes at most `limit` of ctx's organization's incidents resolved longer ago than its retention;
 * returns how many. Open ones stay. Safe for alerting: the dead-delivery check looks back at most an
 * hour past a resolved incident's watermark (ALERT_TIMING.deadLookbackMs), and retention is a day at
 * least. (opened_at ≤ resolved_at, so the opened_at bound only lets the organization's index be used.)
 */
export async function deleteExpiredIncidents({ ctx, input }: { ctx: Ctx; input: { limit: number } }): Promise<number> {
  const cutoff = retentionCutoff(ctx.organizationId);
  const rows = await ctx.db.execute<{ n: number }>(sql`
    with gone as (
      delete from incidents where id = any(array(
        select i.id from incidents i
        where i.organization_id = ${ctx.organizationId}
          and i.opened_at < ${cutoff}
          and i.resolved_at < ${cutoff}
        limit ${input.limit}
        for update skip locked))
      returning 1
    )
    select count(*)::int as n from gone`);
  return Number(rows[0]?.n ?? 0);
}
