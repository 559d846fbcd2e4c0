// The background half of deleting an organization (delete-organization.ts ends access at once): its
// endpoints one per transaction (each takes its own bounded quarantine, refused requests and counters
// with it), then its deliveries (attempts, payloads and keys by a trigger) in short batches of rows nobody holds, paced like
// an endpoint's purge, so other organizations' ingest and deliveries go on.
import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { deleteDeliveriesBatch } from "@/lib/delivery/delete-deliveries-batch";
import { config } from "@/lib/config/config";
import { forgetEndpoint } from "@/lib/endpoints/endpoint-cache";

const PAUSE_FACTOR = 2;
const MIN_PAUSE_MS = 200;

/** True when the organization was deleted by its owner: nothing is ever purged from a live one. */
export async function organizationIsDeleted(ctx: Ctx): Promise<boolean> {
  const [row] = await ctx.db.execute<{ deleted: boolean }>(sql`select deleted_at is not null as deleted from organizations where id = ${ctx.organizationId}`);
  return row?.deleted === true;
}

async function deleteOneEndpoint(ctx: Ctx): Promise<boolean> {
  const rows = await ctx.db.execute<{ id: string }>(sql`
    delete from endpoints where id = (
      select e.id from endpoints e join organizations o on o.id = e.organization_id and o.deleted_at is not null
      where e.organization_id = ${ctx.organizationId} limit 1 for update of e skip locked)
    returning id`);
  for (const row of rows) forgetEndpoint(row.id);
  return rows.length > 0;
}

function deleteDeliveryBatch(ctx: Ctx, batchSize: number): Promise<number> {
  return deleteDeliveriesBatch(ctx.db, sql`d.organization_id = ${ctx.organizationId}
    and exists (select 1 from organizations o where o.id = ${ctx.organizationId} and o.deleted_at is not null)`, batchSize);
}

/**
 * Removes a deleted organization's endpoints, then its deliveries, until none is left (done), the time
 * budget is spent or the signal aborts (not done: the caller queues the rest).
 */
export async function purgeOrganization({ ctx, input }: {
  ctx: Ctx;
  input: { budgetMs: number; signal?: AbortSignal };
}): Promise<{ endpoints: number; deliveries: number; done: boolean }> {
  const deadline = Date.now() + input.budgetMs;
  const outOfTime = () => Date.now() >= deadline || input.signal?.aborted === true;
  let endpoints = 0;
  while (await deleteOneEndpoint(ctx)) {
    endpoints++;
    if (outOfTime()) return { endpoints, deliveries: 0, done: false };
  }
  const batchSize = config().ENDPOINT_PURGE_BATCH_SIZE;
  let deliveries = 0;
  for (;;) {
    const started = Date.now();
    const n = await deleteDeliveryBatch(ctx, batchSize);
    deliveries += n;
    if (n === 0) return { endpoints, deliveries, done: true };
    if (outOfTime()) return { endpoints, deliveries, done: false };
    await new Promise((resolve) => setTimeout(resolve, Math.max(MIN_PAUSE_MS, PAUSE_FACTOR * (Date.now() - started))));
  }
}

/**
 * The end: the organization's row, once deleted and purged. Its deletion cascades to what is left
 * (audit entries, mails, incidents, sessions with no other organization …) and to any delivery stored
 * after the last batch.
 */
export async function removeDeletedOrganizationRow(ctx: Ctx): Promise<boolean> {
  const rows = await ctx.db.execute(sql`delete from organizations where id = ${ctx.organizationId} and deleted_at is not null returning 1`);
  return rows.length > 0;
}
