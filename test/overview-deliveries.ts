// A delivery row as the overview's tests seed one (lib/endpoints/get-overview*.int.test.ts): to the endpoint's
// default destination, received (and pending since) `receivedAt`.
import { randomBytes } from "node:crypto";
import { getDb } from "@/db";
import { deliveries, type DeliveryStatus } from "@/db/schema";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { newId } from "@/lib/ids";

/** `autoAttemptCount` defaults to `attemptCount` (no replay); a replayed delivery's series starts again at 0. */
export async function insertDelivery(organizationId: string, endpointId: string, status: DeliveryStatus, receivedAt: Date, attemptCount = 0, autoAttemptCount = attemptCount) {
  await getDb().insert(deliveries).values({
    id: newId("dlv"), organizationId, endpointId, destinationId: defaultDestinationId(endpointId), externalId: `evt_${randomBytes(6).toString("hex")}`, status,
    sizeBytes: 2, receivedAt, pendingSince: receivedAt, updatedAt: receivedAt, attemptCount, autoAttemptCount,
  });
}
