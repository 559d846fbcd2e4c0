// The first step of a job's claim of its own delivery, before any lock (claim-delivery.ts).
import type postgres from "postgres";
import { orgInFlightSql } from "./endpoint-slots";
import type { DeliverySettings } from "./settings";

/**
 * A due delivery of an endpoint that is paused or looks full (or whose organization looks full) is
 * parked without the slot locks (parking never exceeds a cap; the look after the commit catches a
 * slot freed meanwhile), so a backlog's first pass through the queue does not queue on the locks.
 */
export function parkEarly(tx: postgres.ReservedSql, input: { deliveryId: string; endpointId: string; settings: DeliverySettings }) {
  const { deliveryId, endpointId, settings } = input;
  return tx<{ paused: boolean }[]>`
    with e as (
      select e.organization_id, e.paused,
        (select coalesce(sum(s.in_flight), 0) from endpoint_slots s where s.endpoint_id = e.id) >= ${settings.endpointConcurrency} as endpoint_full,
        ${tx.unsafe(orgInFlightSql("e.organization_id"))} >= ${settings.orgConcurrency} as org_full
      from endpoints e where e.id = ${endpointId}
    ),
    early as (
      update deliveries d set parked_at = now(), next_attempt_at = null, updated_at = now()
      from e
      where d.id = ${deliveryId} and d.endpoint_id = ${endpointId} and d.status = 'pending' and d.parked_at is null
        and (d.next_attempt_at is null or d.next_attempt_at <= now() + interval '1 second')
        and (e.paused or e.endpoint_full or e.org_full)
      returning e.paused
    ),
    marked as (
      insert into org_waiting_endpoints (organization_id, endpoint_id)
      select e.organization_id, ${endpointId} from e, early where not e.paused and e.org_full
      on conflict do nothing
    )
    select paused from early`.execute();
}
