// The one statement that removes an organization's expired deliveries (their attempts, payloads and keys
// go with them by the trigger inbox_delete_delivery_dependents). Kept alone so a change of storage layout
// changes it in one place.
import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { retentionCutoff } from "./retention-cutoff";

/**
 * Deletes at most `limit` of ctx's organization's settled deliveries whose last change is older than
 * its retention, oldest first (deliveries_org_settled_idx); returns how many. Its own short
 * transaction. Rows someone holds are skipped (SKIP LOCKED: it never waits for the worker or a replay,
 * nor deadlocks with them) and go in a later batch. The conditions are checked again on each row as
 * it is locked, so a replay that committed meanwhile (status pending, updated_at now) keeps its
 * delivery; pending and delivering ones are never taken, nor a dead one whose buried attempt is still
 * in flight (its finish must find its row). Locked rows are deleted by id (a ctid names a row only
 * within its partition).
 */
export async function deleteExpiredDeliveries({ ctx, input }: { ctx: Ctx; input: { limit: number } }): Promise<number> {
  const rows = await ctx.db.execute<{ n: number }>(sql`
    with gone as (
      delete from deliveries where id = any(array(
        select d.id from deliveries d
        where d.organization_id = ${ctx.organizationId}
          and d.status in ('delivered', 'dead')
          and d.updated_at < ${retentionCutoff(ctx.organizationId)}
          and (d.claimed_by_job is null or d.lease_expires_at < now())
        order by d.updated_at
        limit ${input.limit}
        for update skip locked))
      returning 1
    )
    select count(*)::int as n from gone`);
  return Number(rows[0]?.n ?? 0);
}
