import type { Ctx } from "@/lib/context";
import type { DeliveryStatus } from "@/db/schema";
import { deliverJobKey } from "@/lib/queue/job-registry";
import { removeJobs } from "@/lib/queue/queue-tables";
import { bulkSelection, countSelection, selectionPages } from "./bulk-selection";
import { changeInChunks } from "./change-in-chunks";
import { BURY } from "./sql/bury";
import { logger } from "@/lib/logging/logger";

/**
 * Buries every delivery the filter names ({endpointId?, destinationId?, status?, eventType?, q?, since?, until?},
 * received before now) that is not dead yet, cancelling their scheduled attempts; each chunk's
 * rows and job removals commit together. `dryRun` only counts (and records nothing). `keepDelivered`
 * leaves delivered ones alone too (the dashboard's "Bury all matching…"); the REST call buries what
 * the filter names (API.md).
 */
export async function buryDeliveries({ ctx, input }: { ctx: Ctx; input: { filter: unknown; dryRun?: boolean; keepDelivered?: boolean } }): Promise<{ count: number }> {
  const keepDelivered = input.keepDelivered ?? false;
  // A filtered row went to no destination: nothing to bury.
  const skipped: DeliveryStatus[] = keepDelivered ? ["dead", "delivered", "filtered"] : ["dead", "filtered"];
  const { filter, where, inTurn } = await bulkSelection(ctx, input.filter, skipped);
  if (input.dryRun) return { count: await inTurn(() => countSelection(ctx, where)) };
  const buried = await inTurn(() => changeInChunks(ctx, {
    action: "deliveries.buried",
    filter,
    pages: selectionPages(ctx, where),
    change: async (tx, ids) => {
      const rows = await tx.db.execute<{ id: string }>(BURY({ organizationId: ctx.organizationId, ids, keepDelivered }));
      await removeJobs(tx.db, rows.map((row) => deliverJobKey(row.id)));
      return rows.length;
    },
  }));
  logger.info({ organizationId: ctx.organizationId }, `[deliveries] bulk bury of ${buried} deliveries in ${ctx.organizationId} (${ctx.actor.type})`);
  return { count: buried };
}
