import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { retentionCutoff } from "./retention-cutoff";

/**
 * Deletes at most `limit` of ctx's organization's alert notifications that belong to no incident any more (a
 * channel's test, or a resolution told as its endpoint was deleted) and are settled and older than its
 * retention; returns how many. An incident's notifications go with the incident. One still queued or retrying
 * has a job that needs its row, so it stays.
 */
export async function deleteExpiredAlertNotifications({ ctx, input }: { ctx: Ctx; input: { limit: number } }): Promise<number> {
  const rows = await ctx.db.execute<{ n: number }>(sql`
    with gone as (
      delete from alert_notifications where id = any(array(
        select n.id from alert_notifications n
        where n.organization_id = ${ctx.organizationId}
          and n.created_at < ${retentionCutoff(ctx.organizationId)}
          and n.incident_id is null and (n.status in ('sent', 'failed') or n.mail_id is not null)
        order by n.created_at
        limit ${input.limit}
        for update skip locked))
      returning 1
    )
    select count(*)::int as n from gone`);
  return Number(rows[0]?.n ?? 0);
}
