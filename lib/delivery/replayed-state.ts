import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { deliveries } from "@/db/schema";

/** The columns a replay resets: pending again, a fresh series of automatic attempts, no claim, not parked. */
export function replayedState(): PgUpdateSetSource<typeof deliveries> {
  return {
    status: "pending",
    autoAttemptCount: 0,
    nextAttemptAt: null,
    deliveredAt: null,
    parkedAt: null,
    claimedByJob: null,
    leaseExpiresAt: null,
    updatedAt: new Date(),
  };
}
