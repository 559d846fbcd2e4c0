// ROUTE_AGAIN: a request stored `filtered` (no destination's filter took it) handed to the destinations its
// endpoint's filters take now (a replay of it, replay-delivery.ts): its row becomes the first one's, and each
// further one gets a row of its own (lib/ids.ts deliveryRowId), all pending. Nothing when it is no longer
// filtered (a replay beside it went first). The caller adds their jobs in the same transaction.
import { sql, type SQL } from "drizzle-orm";
import type { RequestLane } from "@/lib/destinations/route-request";

/** Returns the rows made pending: none when the request was no longer filtered. */
export const ROUTE_AGAIN = (input: { organizationId: string; requestId: string; lanes: RequestLane[] }): SQL => sql`
  with lanes as (
    select * from json_to_recordset(${JSON.stringify(input.lanes.map((l, i) => ({ id: l.id, destination_id: l.destinationId, ordering_value: l.orderingValue, first: i === 0 })))}::json)
      as l(id text, destination_id text, ordering_value text, first boolean)
  ),
  routed as (
    update deliveries d set destination_id = l.destination_id, ordering_value = l.ordering_value, status = 'pending',
      pending_since = now(), updated_at = now()
    from lanes l
    where l.first and d.id = ${input.requestId} and d.organization_id = ${input.organizationId} and d.status = 'filtered'
    returning d.id, d.destination_id, d.organization_id, d.endpoint_id, d.external_id, d.event_type, d.size_bytes, d.source_ip, d.received_at, d.is_test
  ),
  added as (
    insert into deliveries (id, organization_id, endpoint_id, destination_id, ordering_value, external_id, event_type, size_bytes, source_ip, received_at, is_test)
    select l.id, r.organization_id, r.endpoint_id, l.destination_id, l.ordering_value, r.external_id, r.event_type, r.size_bytes, r.source_ip, r.received_at, r.is_test
    from routed r cross join lanes l where not l.first
    returning id, destination_id
  )
  select id, destination_id from routed union all select id, destination_id from added`;
