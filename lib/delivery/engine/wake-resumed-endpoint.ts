// The engine's part of a resume: wake the endpoint's oldest parked deliveries into its free slots and, when its
// organization has none free, put the endpoint on the organization's waiting list (endpoint-slots.ts), all in
// the caller's transaction under the endpoint's slot lock.
import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { drizzleRunner, lockEndpointSlots, wakeParkedDeliveries } from "./endpoint-slots";
import { deliverySettings } from "./settings";

/** `floor`: the organization's delivery id floor (lib/storage/delivery-id-floor.ts). Returns how many were woken. */
export async function wakeResumedEndpoint(db: DbOrTx, input: { organizationId: string; endpointId: string; floor: string }): Promise<number> {
  const run = drizzleRunner(db);
  const caps = deliverySettings();
  await lockEndpointSlots(run, input.endpointId);
  const woken = await wakeParkedDeliveries(run, { endpointId: input.endpointId, caps, floor: input.floor });
  await run(sql`
    insert into org_waiting_endpoints (organization_id, endpoint_id)
    select e.organization_id, e.id from endpoints e
    where e.id = ${input.endpointId} and e.organization_id = ${input.organizationId} and not e.paused
      -- Its organization's attempts in flight, summed as the claim sums them (sql/park-early-then-lock.ts).
      and (select coalesce(sum(s.in_flight), 0) from endpoints oe join endpoint_slots s on s.endpoint_id = oe.id
        where oe.organization_id = e.organization_id) >= ${caps.orgConcurrency}::int
      and exists (select 1 from parked_deliveries pk where pk.endpoint_id = ${input.endpointId})
    on conflict do nothing`);
  return woken.length;
}
