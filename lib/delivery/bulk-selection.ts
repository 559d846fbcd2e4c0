// What a bulk replay or bury acts on: the deliveries of ctx's organization that the filter names,
// received before the call, minus those the action cannot apply to. Shared by both bulk verbs, which
// change each page with their statement (sql/replay.ts, sql/bury.ts).
import { and, count, desc, eq, lte, notInArray, sql, type SQL } from "drizzle-orm";
import { deliveries, endpoints, type DeliveryStatus } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import { bulkSearchWhere } from "@/lib/search/search-deliveries";
import { searchGate } from "@/lib/search/search-gate";
import { parseInput } from "@/lib/validation";
import { z } from "zod";
import { DeliveryFilter, deliveryFilterWhere } from "./delivery-filter";

/** Strict: a misspelt field must not silently widen a bulk action to every delivery. `q`: as the list's search. */
export const BulkFilter = DeliveryFilter.extend({ q: z.string().trim().min(1, "q must not be empty.").max(1000).optional() }).strict();
export type BulkFilter = z.infer<typeof BulkFilter>;

/** Rows per transaction: each chunk's changes and its jobs commit together. */
export const BULK_CHUNK = 1000;

/**
 * The filter as parsed (what the audit entry shows), the rows it selects, and how to run the work on them: with a
 * search q, in the organization's turn with its searches (lib/search/search-gate.ts), as it tests bodies.
 */
export async function bulkSelection(ctx: Ctx, rawFilter: unknown, skipStatuses: DeliveryStatus[]): Promise<{ filter: BulkFilter; where: SQL; inTurn: <T>(work: () => Promise<T>) => Promise<T> }> {
  const filter = parseInput(BulkFilter, rawFilter ?? {});
  if (filter.endpointId) {
    const [endpoint] = await ctx.db
      .select({ id: endpoints.id })
      .from(endpoints)
      .where(and(eq(endpoints.id, filter.endpointId), eq(endpoints.organizationId, ctx.organizationId)));
    if (!endpoint) throw new NotFoundError("Endpoint");
  }
  // Received before the call by the database's clock, which stamped received_at: fixed once, as the
  // selection is read in pages over several statements.
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  const [clock] = await ctx.db.execute<{ now: string }>(sql`select now()::text as now`);
  const cutoff = sql`${clock!.now}::timestamptz`;
  const where = and(
    deliveryFilterWhere(ctx.organizationId, idFloor, filter), notInArray(deliveries.status, skipStatuses), lte(deliveries.receivedAt, cutoff),
    filter.q ? bulkSearchWhere(filter.q, idFloor) : undefined,
  )!;
  const q = filter.q;
  const inTurn = <T>(work: () => Promise<T>) => (q ? searchGate().run(ctx.organizationId, work) : work());
  return { filter, where, inTurn };
}

export async function countSelection(ctx: Ctx, where: SQL): Promise<number> {
  const [row] = await ctx.db.select({ n: count() }).from(deliveries).where(where);
  return row?.n ?? 0;
}

/** One page of a selection: its ids, and whether it is the last. */
export interface SelectionPage {
  ids: string[];
  last: boolean;
}

/**
 * The ids selected, a page of BULK_CHUNK at a time, newest first: each page is read when the one before has
 * been changed, so a selection of millions never sits in memory whole. Walked by (received_at, id) after
 * the last page's end, the order of deliveries_org_received_idx; a page reads one row more to know
 * whether another follows.
 */
export async function* selectionPages(ctx: Ctx, where: SQL): AsyncGenerator<SelectionPage> {
  let after: { receivedAt: string; id: string } | null = null;
  for (;;) {
    const rows: { id: string; receivedAt: string }[] = await ctx.db
      .select({ id: deliveries.id, receivedAt: sql<string>`${deliveries.receivedAt}::text` })
      .from(deliveries)
      .where(after ? and(where, sql`(${deliveries.receivedAt}, ${deliveries.id}) < (${after.receivedAt}::timestamptz, ${after.id})`) : where)
      .orderBy(desc(deliveries.receivedAt), desc(deliveries.id))
      .limit(BULK_CHUNK + 1);
    const page = rows.slice(0, BULK_CHUNK);
    const last = rows.length <= BULK_CHUNK;
    if (page.length > 0) yield { ids: page.map((row) => row.id), last };
    if (last) return;
    after = page.at(-1)!;
  }
}
