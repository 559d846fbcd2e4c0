import { and, eq, inArray } from "drizzle-orm";
import { deliveries } from "@/db/schema";
import { deliverJobSpec, enqueue } from "@/lib/queue/enqueue";
import type { Ctx } from "@/lib/context";
import { countSelection, bulkSelection, lockChunk, selectionPages } from "./bulk-selection";
import { changeInChunks } from "./change-in-chunks";
import { keepDedupeKeys, noAttemptInFlight, replayedState } from "./replayed-state";
import { logger } from "@/lib/logging/logger";

/**
 * Replays every delivery the filter names ({endpointId?, status?, eventType?, since?, until?},
 * received before now), except those with an attempt in flight. Each chunk's rows and replay jobs
 * commit together; replay jobs run after fresh deliveries (priority lane), so a bulk replay does
 * not delay new traffic. `dryRun` only counts (and records nothing).
 */
export async function replayDeliveries({ ctx, input }: { ctx: Ctx; input: { filter: unknown; dryRun?: boolean } }): Promise<{ count: number }> {
  const selection = await bulkSelection(ctx, input.filter, ["delivering"]);
  const where = and(selection.where, noAttemptInFlight)!;
  if (input.dryRun) return { count: await countSelection(ctx, where) };
  const replayed = await changeInChunks(ctx, {
    action: "deliveries.replayed",
    filter: selection.filter,
    pages: selectionPages(ctx, where),
    change: async (tx, ids) => {
      await lockChunk(tx.db, ctx.organizationId, ids);
      const rows = await tx.db
        .update(deliveries)
        .set(replayedState())
        .where(and(inArray(deliveries.id, ids), eq(deliveries.organizationId, ctx.organizationId), noAttemptInFlight))
        .returning({ id: deliveries.id, endpointId: deliveries.endpointId, externalId: deliveries.externalId });
      await keepDedupeKeys(tx.db, rows);
      // Unkeyed (see deliverJobSpec): thousands of keys could lock running jobs' rows; a scheduled
      // retry left beside a replay job finds the delivery settled or already claimed.
      await enqueue(tx.db, rows.map((row) => deliverJobSpec({ deliveryId: row.id, endpointId: row.endpointId, trigger: "replay", unkeyed: true })));
      return rows.length;
    },
  });
  logger.info({ organizationId: ctx.organizationId }, `[deliveries] bulk replay of ${replayed} deliveries in ${ctx.organizationId} (${ctx.actor.type})`);
  return { count: replayed };
}
