// Every task the worker runs: one for each job of the registry (lib/queue/job-registry.ts), under its
// identifier, each in its own file here named for it. taskListOf makes the compiler refuse a job without
// its task, or a task filed under another job's name.
import { taskListOf } from "@/lib/queue/job-registry";
import { applyRetentionTask } from "./apply-retention";
import { checkAlertsTask } from "./check-alerts";
import { deleteOrganizationTask } from "./delete-organization";
import { deliverTask } from "./deliver";
import { endDestinationDeliveriesTask } from "./end-destination-deliveries";
import { expireLeasesTask } from "./expire-leases";
import { wakeRateLimitedTask } from "./wake-rate-limited";
import { indexBodiesTask } from "./index-bodies";
import { deliveryPartitionsTask } from "./delivery-partitions";
import { notifyAlertChannelTask } from "./notify-alert-channel";
import { purgeEndpointDeliveriesTask } from "./purge-endpoint-deliveries";
import { rescueDeliveriesTask } from "./rescue-deliveries";
import { reverifyQuarantineTask } from "./reverify-quarantine";
import { rollUpDeliveryCountersTask } from "./roll-up-delivery-counters";
import { sendDailyDigestTask } from "./send-daily-digest";
import { sendMailTask } from "./send-mail";
import { vacuumOwnTablesTask } from "./vacuum-own-tables";

export const taskList = taskListOf({
  "apply-retention": applyRetentionTask,
  "check-alerts": checkAlertsTask,
  "delete-organization": deleteOrganizationTask,
  deliver: deliverTask,
  "end-destination-deliveries": endDestinationDeliveriesTask,
  "expire-leases": expireLeasesTask,
  "wake-rate-limited": wakeRateLimitedTask,
  "index-bodies": indexBodiesTask,
  "delivery-partitions": deliveryPartitionsTask,
  "notify-alert-channel": notifyAlertChannelTask,
  "purge-endpoint-deliveries": purgeEndpointDeliveriesTask,
  "rescue-deliveries": rescueDeliveriesTask,
  "reverify-quarantine": reverifyQuarantineTask,
  "roll-up-delivery-counters": rollUpDeliveryCountersTask,
  "send-daily-digest": sendDailyDigestTask,
  "send-mail": sendMailTask,
  "vacuum-own-tables": vacuumOwnTablesTask,
});
