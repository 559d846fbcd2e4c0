// The engine's part of a resume: wake the destination's oldest parked deliveries into its free slots and, when its
// organization has none free, put the destination on the organization's waiting list (destination-slots.ts), all in
// the caller's transaction under the destination's slot lock. A pull destination's parked deliveries are not woken
// (pulls lease them): its waiting pulls are told at the commit instead.
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { PULL_READY_CHANNEL } from "@/lib/destinations/pull-ready";
import { drizzleRunner, lockDestinationSlots, wakeParkedDeliveries } from "./destination-slots";
import { deliverySettings } from "./settings";

/** `floor`: the organization's delivery id floor (lib/storage/delivery-id-floor.ts). Returns how many were woken. */
export async function wakeResumedDestination(db: DbOrTx, input: { organizationId: string; destinationId: string; floor: string }): Promise<number> {
  const run = drizzleRunner(db);
  const caps = deliverySettings();
  await lockDestinationSlots(run, input.destinationId);
  const woken = await wakeParkedDeliveries(run, { destinationId: input.destinationId, caps, floor: input.floor });
  await run(sql`
    insert into org_waiting_destinations (organization_id, destination_id)
    select e.organization_id, e.id from destinations e
    where e.id = ${input.destinationId} and e.organization_id = ${input.organizationId} and not e.paused and e.type <> 'pull'
      -- Its organization's attempts in flight, summed as the claim sums them (sql/park-early-then-lock.ts).
      and (select coalesce(sum(s.in_flight), 0) from destinations oe join destination_slots s on s.destination_id = oe.id
        where oe.organization_id = e.organization_id and oe.type <> 'pull') >= ${caps.orgConcurrency}::int
      and exists (select 1 from parked_deliveries pk where pk.destination_id = ${input.destinationId})
    on conflict do nothing`);
  await run(sql`select pg_notify(${PULL_READY_CHANNEL}, e.id) from destinations e
    where e.id = ${input.destinationId} and e.organization_id = ${input.organizationId} and e.type = 'pull' and not e.paused`);
  return woken.length;
}
