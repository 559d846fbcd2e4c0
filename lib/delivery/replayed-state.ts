import { sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import { deliveries } from "@/db/schema";

/**
 * Only these may be replayed: no attempt in flight. A bury keeps the claim of an attempt in flight
 * (that attempt still finishes and is recorded), so status alone does not say; a claim whose lease
 * has lapsed belongs to a worker that died, and no longer holds the delivery.
 */
export const noAttemptInFlight = sql`(${deliveries.status} <> 'delivering' and (${deliveries.claimedByJob} is null or ${deliveries.leaseExpiresAt} < now()))`;

/**
 * The columns a replay resets: pending again, a fresh series of automatic attempts, no claim, not parked, and
 * waiting since now (a pending-age alert counts from here, not from the first receipt: API.md, Alerts).
 */
export function replayedState(): PgUpdateSetSource<typeof deliveries> {
  return {
    status: "pending",
    autoAttemptCount: 0,
    nextAttemptAt: null,
    deliveredAt: null,
    parkedAt: null,
    claimedByJob: null,
    leaseExpiresAt: null,
    updatedAt: sql`now()`,
    pendingSince: sql`now()`,
  };
}
