// end-destination-deliveries: ends a deleted destination's deliveries (lib/delivery/end-destination-deliveries.ts),
// queued by deleteDestination in its transaction. One bounded transaction a run; a run that leaves work queues the
// next (at once while pages wait, later while an attempt is in flight or the grace lasts), so a worker's slot and
// its shutdown are never held long. The last run removes the destination's row.
import { createCtx } from "@/lib/context";
import { endDestinationDeliveries } from "@/lib/delivery/end-destination-deliveries";
import { logger } from "@/lib/logging/logger";
import { enqueue } from "@/lib/queue/enqueue";
import { jobSpec, registeredTask } from "@/lib/queue/job-registry";

export const endDestinationDeliveriesTask = registeredTask("end-destination-deliveries", async ({ organizationId, destinationId }, helpers) => {
  const ctx = createCtx(organizationId, { type: "system" });
  const outcome = await endDestinationDeliveries({ ctx, input: { destinationId } });
  const next = { organizationId, destinationId };
  if (outcome.state === "more") await enqueue(ctx.db, [jobSpec("end-destination-deliveries", next)]);
  if (outcome.state === "later") await enqueue(ctx.db, [jobSpec("end-destination-deliveries", next, { runAt: outcome.runAt })]);
  const fields = { jobId: helpers.job.id, organizationId, destinationId };
  if (outcome.state === "more" && outcome.buried > 0) logger.info(fields, `[end-destination-deliveries] destination ${destinationId}: ${outcome.buried} waiting deliveries buried`);
  if (outcome.state === "removed") logger.info(fields, `[end-destination-deliveries] destination ${destinationId}: no delivery open, its row removed`);
});
