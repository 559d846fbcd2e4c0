// How a bulk replay or bury changes what it selected: a chunk per transaction (each chunk's rows and
// jobs commit together), and one audit entry for the whole call (API.md: `{filter, count}`).
import { PgTransaction } from "drizzle-orm/pg-core";
import type { Tx } from "@/db";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import type { SelectionPage } from "./bulk-selection";
import type { DeliveryFilter } from "./delivery-filter";

interface BulkChange {
  action: "deliveries.replayed" | "deliveries.buried";
  filter: DeliveryFilter;
  /** The selection, page by page (lib/delivery/bulk-selection.ts selectionPages). */
  pages: AsyncIterable<SelectionPage>;
  /** Changes one chunk's deliveries in `tx`; returns how many changed. */
  change: (tx: Ctx & { db: Tx }, ids: string[]) => Promise<number>;
}

/**
 * Runs `change` chunk by chunk and returns the total changed. The audit entry, with that total,
 * commits with the last chunk; nothing changed, no entry. Should a later chunk fail, the chunks
 * already committed are recorded on their own (`interrupted: true`) before the error goes on, so
 * the log never misses a change that stayed.
 */
export async function changeInChunks(ctx: Ctx, { action, filter, pages, change }: BulkChange): Promise<number> {
  const target = filter.endpointId ? { type: "endpoint" as const, id: filter.endpointId } : { type: "organization" as const, id: ctx.organizationId };
  let total = 0;
  try {
    for await (const { ids, last } of pages) {
      total += await withTransaction(ctx, async (tx) => {
        const changed = await change(tx, ids);
        if (last && total + changed > 0) await recordAudit(tx, { action, target, details: { filter, count: total + changed } });
        return changed;
      });
    }
  } catch (error) {
    // Inside a caller's transaction every chunk rolls back with it: nothing stayed to record.
    if (total > 0 && !(ctx.db instanceof PgTransaction)) {
      await withTransaction(ctx, (tx) => recordAudit(tx, { action, target, details: { filter, count: total, interrupted: true } }));
    }
    throw error;
  }
  return total;
}
