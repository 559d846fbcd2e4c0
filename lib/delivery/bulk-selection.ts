// What a bulk replay or bury acts on: the deliveries of ctx's organization that the filter names,
// received before the call, minus those the action cannot apply to. Shared by both bulk verbs.
import { and, asc, count, eq, inArray, lte, notInArray, sql, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { deliveries, endpoints, type DeliveryStatus } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import { parseInput } from "@/lib/validation";
import { DeliveryFilter, deliveryFilterWhere } from "./delivery-filter";

/** Strict: a misspelt field must not silently widen a bulk action to every delivery. */
export const BulkFilter = DeliveryFilter.strict();

/** Rows per transaction: each chunk's changes and its jobs commit together. */
export const BULK_CHUNK = 1000;

/** The filter as parsed (what the audit entry shows) and the rows it selects. */
export async function bulkSelection(ctx: Ctx, rawFilter: unknown, skipStatuses: DeliveryStatus[]): Promise<{ filter: DeliveryFilter; where: SQL }> {
  const filter = parseInput(BulkFilter, rawFilter ?? {});
  if (filter.endpointId) {
    const [endpoint] = await ctx.db
      .select({ id: endpoints.id })
      .from(endpoints)
      .where(and(eq(endpoints.id, filter.endpointId), eq(endpoints.organizationId, ctx.organizationId)));
    if (!endpoint) throw new NotFoundError("Endpoint");
  }
  // Received before now by the database's clock, which stamped received_at.
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  const where = and(deliveryFilterWhere(ctx.organizationId, idFloor, filter), notInArray(deliveries.status, skipStatuses), lte(deliveries.receivedAt, sql`now()`))!;
  return { filter, where };
}

export async function countSelection(ctx: Ctx, where: SQL): Promise<number> {
  const [row] = await ctx.db.select({ n: count() }).from(deliveries).where(where);
  return row?.n ?? 0;
}

/** The ids selected, in chunks of BULK_CHUNK. */
export async function selectionChunks(ctx: Ctx, where: SQL): Promise<string[][]> {
  const rows = await ctx.db.select({ id: deliveries.id }).from(deliveries).where(where);
  const chunks: string[][] = [];
  for (let i = 0; i < rows.length; i += BULK_CHUNK) chunks.push(rows.slice(i, i + BULK_CHUNK).map((row) => row.id));
  return chunks;
}

/**
 * Locks a chunk's rows in id order before it is changed. The worker's batched claims and finishes
 * lock the rows they move in id order too (lib/delivery/engine/claim-statements.ts, finish-attempt.ts), so a bulk
 * action and a batch that share rows wait for each other instead of deadlocking.
 */
export async function lockChunk(db: DbOrTx, organizationId: string, ids: string[]): Promise<void> {
  await db
    .select({ id: deliveries.id })
    .from(deliveries)
    .where(and(inArray(deliveries.id, ids), eq(deliveries.organizationId, organizationId)))
    .orderBy(asc(deliveries.id))
    .for("update");
}
