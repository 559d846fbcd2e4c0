import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { retentionCutoff } from "./retention-cutoff";

/**
 * Deletes at most `limit` of ctx's organization's mails that are done (sent, logged, or failed for
 * good) and were written longer ago than its retention; returns how many. A mail still queued or
 * retrying has a send-mail job that needs its row, so it stays whatever its age.
 */
export async function deleteExpiredMails({ ctx, input }: { ctx: Ctx; input: { limit: number } }): Promise<number> {
  const rows = await ctx.db.execute<{ n: number }>(sql`
    with gone as (
      delete from mails where id = any(array(
        select m.id from mails m
        where m.organization_id = ${ctx.organizationId}
          and m.status in ('sent', 'logged', 'failed')
          and m.created_at < ${retentionCutoff(ctx.organizationId)}
        order by m.created_at
        limit ${input.limit}
        for update skip locked))
      returning 1
    )
    select count(*)::int as n from gone`);
  return Number(rows[0]?.n ?? 0);
}
