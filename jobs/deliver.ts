// deliver: one attempt at handing a stored delivery to its destination
// (lib/delivery/engine/attempt-delivery.ts). Enqueued by ingest, by the retry schedule, by replays and by
// wake-ups of parked deliveries, always through deliverJobSpec (lib/queue/enqueue.ts); its payload is JOBS.deliver's (lib/queue/job-registry.ts).
import { attemptDelivery } from "@/lib/delivery/engine";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { registeredTask } from "@/lib/queue/job-registry";

export const deliverTask = registeredTask("deliver", async ({ deliveryId, destinationId, endpointId, trigger }, helpers) => {
  // A job queued before migration 0036 names the endpoint, whose default destination its delivery was given.
  const lane = destinationId ?? (endpointId ? defaultDestinationId(endpointId) : undefined);
  // attempts > 1: this job ran before and did not finish (its worker died, or it failed).
  await attemptDelivery({ deliveryId, destinationId: lane, trigger, jobId: helpers.job.id, rerun: helpers.job.attempts > 1, signal: helpers.abortSignal });
});
