import { and, eq, inArray, notInArray } from "drizzle-orm";
import { deliveries, type DeliveryStatus } from "@/db/schema";
import { deliverJobKey } from "@/lib/queue/job-registry";
import { removeJobs } from "@/lib/queue/queue-tables";
import type { Ctx } from "@/lib/context";
import { buriedState } from "./buried-state";
import { bulkSelection, countSelection, lockChunk, selectionPages } from "./bulk-selection";
import { changeInChunks } from "./change-in-chunks";
import { logger } from "@/lib/logging/logger";

/**
 * Buries every delivery the filter names ({endpointId?, status?, eventType?, since?, until?},
 * received before now) that is not dead yet, cancelling their scheduled attempts; each chunk's
 * rows and job removals commit together. `dryRun` only counts (and records nothing). `keepDelivered`
 * leaves delivered ones alone too (the dashboard's "Bury all matching…"); the REST call buries what
 * the filter names (API.md).
 */
export async function buryDeliveries({ ctx, input }: { ctx: Ctx; input: { filter: unknown; dryRun?: boolean; keepDelivered?: boolean } }): Promise<{ count: number }> {
  const skipped: DeliveryStatus[] = input.keepDelivered ? ["dead", "delivered"] : ["dead"];
  const { filter, where } = await bulkSelection(ctx, input.filter, skipped);
  if (input.dryRun) return { count: await countSelection(ctx, where) };
  const buried = await changeInChunks(ctx, {
    action: "deliveries.buried",
    filter,
    pages: selectionPages(ctx, where),
    change: async (tx, ids) => {
      await lockChunk(tx.db, ctx.organizationId, ids);
      const rows = await tx.db
        .update(deliveries)
        .set(buriedState())
        .where(and(inArray(deliveries.id, ids), eq(deliveries.organizationId, ctx.organizationId), notInArray(deliveries.status, skipped)))
        .returning({ id: deliveries.id });
      await removeJobs(tx.db, rows.map((row) => deliverJobKey(row.id)));
      return rows.length;
    },
  });
  logger.info({ organizationId: ctx.organizationId }, `[deliveries] bulk bury of ${buried} deliveries in ${ctx.organizationId} (${ctx.actor.type})`);
  return { count: buried };
}
