// roll-up-delivery-counters: every minute (jobs/crontab.ts), folds the counter events the triggers on deliveries
// write into per-endpoint totals, which /api/metrics reads (lib/metrics/roll-up-delivery-counters.ts).
import type { Task } from "graphile-worker";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";

export const rollUpDeliveryCountersTask: Task = async () => {
  await rollUpDeliveryCounters();
};
