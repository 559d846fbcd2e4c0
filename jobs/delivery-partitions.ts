// delivery-partitions: every hour (jobs/crontab.ts), makes the weeks of delivery partitions missing ahead
// (lib/storage/delivery-partitions.ts), then refreshes the organizations' delivery id floors
// (lib/storage/delivery-id-floor.ts). The retention sweep drops the past weeks (jobs/apply-retention.ts).
import { refreshDeliveryIdFloors } from "@/lib/storage/delivery-id-floor";
import { makeDeliveryPartitions } from "@/lib/storage/delivery-partitions";
import { logger } from "@/lib/logging/logger";
import { registeredTask } from "@/lib/queue/job-registry";

export const deliveryPartitionsTask = registeredTask("delivery-partitions", async (_payload, helpers) => {
  const log = logger.child({ jobId: helpers.job.id });
  const made = await makeDeliveryPartitions();
  if (made > 0) log.info(`[partitions] made ${made} week(s) of delivery partitions ahead`);
  const floors = await refreshDeliveryIdFloors();
  if (floors > 0) log.info(`[partitions] ${floors} organization(s)' delivery id floor refreshed`);
});
