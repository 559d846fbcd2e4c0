// roll-up-delivery-counters: every minute (jobs/crontab.ts), folds the counter events the triggers on deliveries
// write into per-endpoint totals, which /api/metrics reads (lib/metrics/roll-up-delivery-counters.ts).
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { registeredTask } from "@/lib/queue/job-registry";

export const rollUpDeliveryCountersTask = registeredTask("roll-up-delivery-counters", async () => {
  await rollUpDeliveryCounters();
});
