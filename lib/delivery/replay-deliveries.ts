import { and, eq, inArray } from "drizzle-orm";
import { deliveries } from "@/db/schema";
import { deliverJobSpec, enqueue } from "@/lib/queue/enqueue";
import { withTransaction, type Ctx } from "@/lib/context";
import { bulkSelection, countSelection, lockChunk, selectionChunks } from "./bulk-selection";
import { noAttemptInFlight, replayedState } from "./replayed-state";

/**
 * Replays every delivery the filter names ({endpointId?, status?, eventType?, since?, until?},
 * received before now), except those with an attempt in flight. Each chunk's rows and replay jobs
 * commit together; replay jobs run after fresh deliveries (priority lane), so a bulk replay does
 * not delay new traffic. `dryRun` only counts.
 */
export async function replayDeliveries({ ctx, input }: { ctx: Ctx; input: { filter: unknown; dryRun?: boolean } }): Promise<{ count: number }> {
  const where = and(await bulkSelection(ctx, input.filter, ["delivering"]), noAttemptInFlight)!;
  if (input.dryRun) return { count: await countSelection(ctx, where) };
  let replayed = 0;
  for (const ids of await selectionChunks(ctx, where)) {
    replayed += await withTransaction(ctx, async (tx) => {
      await lockChunk(tx.db, ctx.organizationId, ids);
      const rows = await tx.db
        .update(deliveries)
        .set(replayedState())
        .where(and(inArray(deliveries.id, ids), eq(deliveries.organizationId, ctx.organizationId), noAttemptInFlight))
        .returning({ id: deliveries.id, endpointId: deliveries.endpointId });
      // Unkeyed (see deliverJobSpec): thousands of keys could lock running jobs' rows; a scheduled
      // retry left beside a replay job finds the delivery settled or already claimed.
      await enqueue(tx.db, rows.map((row) => deliverJobSpec({ deliveryId: row.id, endpointId: row.endpointId, trigger: "replay", unkeyed: true })));
      return rows.length;
    });
  }
  console.log(`[deliveries] bulk replay of ${replayed} deliveries in ${ctx.organizationId} (${ctx.actor.type})`);
  return { count: replayed };
}
