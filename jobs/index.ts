// Every task the worker runs, by identifier (= its file name in jobs/). A plain map: add a line per task.
import type { TaskList } from "graphile-worker";
import { applyRetentionTask } from "./apply-retention";
import { checkAlertsTask } from "./check-alerts";
import { deleteOrganizationTask } from "./delete-organization";
import { deliverTask } from "./deliver";
import { indexBodiesTask } from "./index-bodies";
import { deliveryPartitionsTask } from "./delivery-partitions";
import { purgeEndpointDeliveriesTask } from "./purge-endpoint-deliveries";
import { rescueDeliveriesTask } from "./rescue-deliveries";
import { reverifyQuarantineTask } from "./reverify-quarantine";
import { rollUpDeliveryCountersTask } from "./roll-up-delivery-counters";
import { sendMailTask } from "./send-mail";
import { vacuumOwnTablesTask } from "./vacuum-own-tables";

export const taskList: TaskList = {
  "apply-retention": applyRetentionTask,
  "check-alerts": checkAlertsTask,
  "delete-organization": deleteOrganizationTask,
  deliver: deliverTask,
  "index-bodies": indexBodiesTask,
  "delivery-partitions": deliveryPartitionsTask,
  "purge-endpoint-deliveries": purgeEndpointDeliveriesTask,
  "rescue-deliveries": rescueDeliveriesTask,
  "reverify-quarantine": reverifyQuarantineTask,
  "roll-up-delivery-counters": rollUpDeliveryCountersTask,
  "send-mail": sendMailTask,
  "vacuum-own-tables": vacuumOwnTablesTask,
};
