import { sql } from "drizzle-orm";
import type { PgUpdateSetSource } from "drizzle-orm/pg-core";
import type { DbOrTx } from "@/db";
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

/**
 * Puts back the dedupe keys of deliveries just replayed, in the replay's transaction. Retention deletes an
 * expired week's keys before it drops the week (lib/retention/drop-expired-delivery-weeks.ts), and a delivery
 * replayed meanwhile stays (the week is looked at again before the drop): with its key, a provider's retry of
 * its event id is still a duplicate. A key a newer delivery of the same event id holds stays that one's.
 */
export async function keepDedupeKeys(db: DbOrTx, replayed: { id: string; endpointId: string; externalId: string }[]): Promise<void> {
  if (replayed.length === 0) return;
  await db.execute(sql`
    insert into delivery_keys (endpoint_id, external_id, delivery_id)
    select * from unnest(${sql.param(replayed.map((r) => r.endpointId))}::text[], ${sql.param(replayed.map((r) => r.externalId))}::text[],
      ${sql.param(replayed.map((r) => r.id))}::text[])
    on conflict do nothing`);
}
