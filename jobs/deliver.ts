// deliver: one attempt at handing a stored delivery to its endpoint's destination
// (lib/delivery/engine/attempt-delivery.ts). Enqueued by ingest, by the retry schedule, by replays and by
// wake-ups of parked deliveries, always through deliverJobSpec (lib/queue/enqueue.ts); its payload is JOBS.deliver's (lib/queue/job-registry.ts).
import { attemptDelivery } from "@/lib/delivery/engine";
import { registeredTask } from "@/lib/queue/job-registry";

export const deliverTask = registeredTask("deliver", async (payload, helpers) => {
  // attempts > 1: this job ran before and did not finish (its worker died, or it failed).
  await attemptDelivery({ ...payload, jobId: helpers.job.id, rerun: helpers.job.attempts > 1, signal: helpers.abortSignal });
});
