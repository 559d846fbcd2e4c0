// The background half of deleting an endpoint (delete-endpoint.ts removes its row at once): its
// deliveries, and by a trigger their attempts, payloads and keys, go in short transactions of a bounded size, so the
// database never holds a long transaction or a huge statement and ingest of other endpoints goes on.
import { sql } from "drizzle-orm";
import { getSql } from "@/db";
import type { Ctx } from "@/lib/context";
import { deleteDeliveriesBatch } from "@/lib/delivery/delete-deliveries-batch";
import { config } from "@/lib/config/config";

const PAUSE_FACTOR = 2;
const MIN_PAUSE_MS = 200;

/**
 * Removes one batch of a deleted endpoint's deliveries; returns how many. Nothing while the endpoint
 * still exists. It takes only rows nobody holds (SKIP LOCKED) and never waits for a row, so it can
 * neither block the delivery worker nor deadlock with it; a row it skipped goes in a later batch or
 * the sweep.
 */
function purgeBatch(ctx: Ctx, endpointId: string, batchSize: number): Promise<number> {
  return deleteDeliveriesBatch(ctx.db, sql`d.endpoint_id = ${endpointId} and d.organization_id = ${ctx.organizationId}
    and not exists (select 1 from endpoints e where e.id = ${endpointId})`, batchSize);
}

/**
 * Purges batch after batch until none is left (done), the time budget is spent or the signal aborts
 * (not done: the caller queues the rest). Between batches it pauses twice as long as the batch took,
 * and at least 200 ms: at most a third of one database connection's time, and about 2,500 deliveries
 * a second at most (500 a batch); a busy database makes batches slower and so the purge gentler. (At ~16,000 a
 * second, 2,000 a batch, other tenants' ingest p99 went over 100 ms in 2 of 7 test runs: a burst of
 * deletes, and the WAL they write, stalled every commit for ~230 ms once. At 5,000: 46–49 ms.)
 */
export async function purgeEndpointDeliveries({ ctx, input }: {
  ctx: Ctx;
  input: { endpointId: string; budgetMs: number; signal?: AbortSignal };
}): Promise<{ deleted: number; done: boolean }> {
  const batchSize = config().ENDPOINT_PURGE_BATCH_SIZE;
  const deadline = Date.now() + input.budgetMs;
  let deleted = 0;
  for (;;) {
    const started = Date.now();
    const n = await purgeBatch(ctx, input.endpointId, batchSize);
    deleted += n;
    if (n === 0) return { deleted, done: true };
    if (Date.now() >= deadline || input.signal?.aborted) return { deleted, done: false };
    await new Promise((resolve) => setTimeout(resolve, Math.max(MIN_PAUSE_MS, PAUSE_FACTOR * (Date.now() - started))));
  }
}

const PURGE_LOCK_NAMESPACE = "webhook-inbox:org-purge";

/**
 * Runs `purge` only while no other purge of the organization runs, in any worker; returns null (and
 * runs nothing) when one does. So an organization deleting many big endpoints adds one stream of
 * batches to the database, and other organizations' purges never wait behind it. A session advisory
 * lock on a connection of its own: it ends with the session if the worker dies. (Not a graphile-worker
 * named queue: with the worker's local queue those run side by side, graphile/worker#621.)
 */
export async function purgeAloneInOrganization<T>(organizationId: string, purge: () => Promise<T>): Promise<T | null> {
  const connection = await getSql().reserve();
  try {
    const [row] = await connection<{ locked: boolean }[]>`
      select pg_try_advisory_lock(hashtext(${PURGE_LOCK_NAMESPACE}), hashtext(${organizationId})) as locked`;
    if (!row?.locked) return null;
    try {
      return await purge();
    } finally {
      await connection`select pg_advisory_unlock(hashtext(${PURGE_LOCK_NAMESPACE}), hashtext(${organizationId}))`;
    }
  } finally {
    connection.release();
  }
}
