// delivery-partitions: every hour (jobs/crontab.ts), makes the weeks of delivery partitions missing ahead and
// drops the past weeks retention has emptied (lib/storage/delivery-partitions.ts).
import type { Task } from "graphile-worker";
import { dropEmptiedDeliveryWeeks, makeDeliveryPartitions } from "@/lib/storage/delivery-partitions";

export const deliveryPartitionsTask: Task = async () => {
  const made = await makeDeliveryPartitions();
  if (made > 0) console.log(`[partitions] made ${made} week(s) of delivery partitions ahead`);
  const dropped = await dropEmptiedDeliveryWeeks();
  if (dropped.length > 0) console.log(`[partitions] dropped the emptied delivery partitions of the weeks of ${dropped.join(", ")}`);
};
