// rescue-deliveries: every minute (jobs/crontab.ts), gives a job back to deliveries that lost theirs
// (lib/delivery/engine/rescue-deliveries.ts). Normally it finds nothing.
import { rescueDeliveries } from "@/lib/delivery/engine";
import { logger } from "@/lib/logging/logger";
import { registeredTask } from "@/lib/queue/job-registry";

export const rescueDeliveriesTask = registeredTask("rescue-deliveries", async (_payload, helpers) => {
  const { lapsed, orphaned, recounted, woken } = await rescueDeliveries();
  if (lapsed + orphaned + recounted + woken > 0) {
    logger.info(
      { jobId: helpers.job.id },
      `[rescue-deliveries] ${lapsed} lapsed claim(s) re-enqueued, ${orphaned} pending without a runnable job re-enqueued, ${recounted} endpoint count(s) corrected, ${woken} parked deliveries woken`,
    );
  }
});
