import { and } from "drizzle-orm";
import { deliverJobSpec, enqueue } from "@/lib/queue/enqueue";
import type { Ctx } from "@/lib/context";
import { countSelection, bulkSelection, selectionPages } from "./bulk-selection";
import { changeInChunks } from "./change-in-chunks";
import { noAttemptInFlight, REPLAY } from "./sql/replay";
import { logger } from "@/lib/logging/logger";

/**
 * Replays every delivery the filter names ({endpointId?, destinationId?, status?, eventType?, q?, since?, until?},
 * received before now), except those with an attempt in flight. Each chunk's rows and replay jobs
 * commit together; replay jobs run after fresh deliveries (priority lane), so a bulk replay does
 * not delay new traffic. `dryRun` only counts (and records nothing).
 */
export async function replayDeliveries({ ctx, input }: { ctx: Ctx; input: { filter: unknown; dryRun?: boolean } }): Promise<{ count: number }> {
  // A filtered row is routed again by a replay of its own delivery, not in bulk (replay-delivery.ts).
  const selection = await bulkSelection(ctx, input.filter, ["delivering", "filtered"]);
  const where = and(selection.where, noAttemptInFlight)!;
  if (input.dryRun) return { count: await selection.inTurn(() => countSelection(ctx, where)) };
  const replayed = await selection.inTurn(() => changeInChunks(ctx, {
    action: "deliveries.replayed",
    filter: selection.filter,
    pages: selectionPages(ctx, where),
    change: async (tx, ids) => {
      const rows = await tx.db.execute<{ id: string; destination_id: string }>(REPLAY({ organizationId: ctx.organizationId, ids }));
      // Unkeyed (see deliverJobSpec): thousands of keys could lock running jobs' rows; a scheduled
      // retry left beside a replay job finds the delivery settled or already claimed.
      await enqueue(tx.db, rows.map((row) => deliverJobSpec({ deliveryId: row.id, destinationId: row.destination_id, trigger: "replay", unkeyed: true })));
      return rows.length;
    },
  }));
  logger.info({ organizationId: ctx.organizationId }, `[deliveries] bulk replay of ${replayed} deliveries in ${ctx.organizationId} (${ctx.actor.type})`);
  return { count: replayed };
}
