// The background half of deleting an endpoint (delete-endpoint.ts removes its row at once): its
// deliveries, and by cascade their attempts, go in short transactions of a bounded size, so the
// database never holds a long transaction or a huge statement and ingest of other endpoints goes on.
import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { positiveIntegerEnv } from "@/lib/env-number";

/** ENDPOINT_PURGE_BATCH_SIZE: deliveries removed per transaction (default 2,000). */
export const purgeBatchSize = () => positiveIntegerEnv(process.env.ENDPOINT_PURGE_BATCH_SIZE, 2_000);

/**
 * Removes one batch of a deleted endpoint's deliveries; returns how many. Nothing while the endpoint
 * still exists. Rows are locked in id order, the order the delivery worker's batched statements lock
 * them in, so the two cannot deadlock.
 */
async function purgeBatch(ctx: Ctx, endpointId: string, batchSize: number): Promise<number> {
  const rows = await ctx.db.execute<{ n: number }>(sql`
    with doomed as (
      select id from deliveries
      where id = any(array(
        select d.id from deliveries d
        where d.endpoint_id = ${endpointId} and d.organization_id = ${ctx.organizationId}
          and not exists (select 1 from endpoints e where e.id = ${endpointId})
        limit ${batchSize}))
      order by id
      for update
    ), gone as (
      delete from deliveries d using doomed where d.id = doomed.id returning 1
    )
    select count(*)::int as n from gone`);
  return Number(rows[0]?.n ?? 0);
}

/**
 * Purges batch after batch until none is left (done), the time budget is spent or the signal aborts
 * (not done: the caller queues the rest). Between batches it pauses as long as the batch took, so the
 * purge uses at most about half of one database connection's time.
 */
export async function purgeEndpointDeliveries({ ctx, input }: {
  ctx: Ctx;
  input: { endpointId: string; budgetMs: number; signal?: AbortSignal };
}): Promise<{ deleted: number; done: boolean }> {
  const batchSize = purgeBatchSize();
  const deadline = Date.now() + input.budgetMs;
  let deleted = 0;
  for (;;) {
    const started = Date.now();
    const n = await purgeBatch(ctx, input.endpointId, batchSize);
    deleted += n;
    if (n === 0) return { deleted, done: true };
    if (Date.now() >= deadline || input.signal?.aborted) return { deleted, done: false };
    await new Promise((resolve) => setTimeout(resolve, Date.now() - started));
  }
}
