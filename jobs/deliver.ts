// deliver: one attempt at handing a stored delivery to its endpoint's destination
// (lib/delivery/engine/attempt-delivery.ts). Enqueued by ingest, by the retry schedule, by replays and by
// wake-ups of parked deliveries, always through deliverJobSpec (lib/queue/enqueue.ts).
import type { Task } from "graphile-worker";
import { z } from "zod";
import { attemptDelivery } from "@/lib/delivery/engine/attempt-delivery";
import { logger } from "@/lib/logging/logger";

/** Checked at run time: a job may carry the shape of an older release. */
const DeliverPayload = z.object({
  deliveryId: z.string().min(1).max(100),
  endpointId: z.string().min(1).max(100).optional(),
  trigger: z.enum(["auto", "replay"]).default("auto"),
});

export const deliverTask: Task = async (payload, helpers) => {
  const parsed = DeliverPayload.safeParse(payload);
  if (!parsed.success) {
    // Retrying cannot fix a payload; say so once and drop the job.
    logger.error({ jobId: helpers.job.id }, `[deliver] job ${helpers.job.id} has an unreadable payload, dropped: ${parsed.error.issues[0]?.message}`);
    return;
  }
  // attempts > 1: this job ran before and did not finish (its worker died, or it failed).
  await attemptDelivery({ ...parsed.data, jobId: helpers.job.id, rerun: helpers.job.attempts > 1, signal: helpers.abortSignal });
};
