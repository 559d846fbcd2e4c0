// expire-leases: ends a pull destination's leases that ran out unacknowledged, as failed attempts
// (lib/delivery/engine/settle-leases.ts); queued by each pull that leased something, due when its leases end.
import { getSql } from "@/db";
import { deliverySettings, expireLeases } from "@/lib/delivery/engine";
import { registeredTask } from "@/lib/queue/job-registry";

export const expireLeasesTask = registeredTask("expire-leases", async ({ destinationId }) => {
  await expireLeases(getSql(), { destinationId, settings: deliverySettings() });
});
