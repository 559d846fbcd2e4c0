// REPLAY: puts deliveries of one organization back to `pending` for an attempt marked `replay`: a fresh series
// of automatic attempts (maxAttempts counts from the replay), no claim, not parked, and waiting since now (a
// pending-age alert counts from here, not from the first receipt: API.md, Alerts). One delivery
// (replay-delivery.ts) or a page of a bulk selection (replay-deliveries.ts): the same statement, with one id or
// a page's. The caller adds their jobs in the same transaction.
import { inArray, sql, type SQL } from "drizzle-orm";
import { deliveries } from "@/db/schema";

/**
 * Only these may be replayed: no attempt in flight. A bury keeps the claim of an attempt in flight (that
 * attempt still finishes and is recorded), so status alone does not say; a claim whose lease has lapsed
 * belongs to a worker that died, and no longer holds the delivery. REPLAY's condition, and the bulk
 * selection's (replay-deliveries.ts), so that a dry run counts what a replay would change.
 */
export const noAttemptInFlight = sql`(${deliveries.status} <> 'delivering' and (${deliveries.claimedByJob} is null or ${deliveries.leaseExpiresAt} < now()))`;

/** Returns the deliveries replayed: one with an attempt in flight, or not of `organizationId`, is not. */
export const REPLAY = (input: { organizationId: string; ids: string[] }): SQL => sql`
  -- Rows locked in id order, as the worker's batched claims and finishes lock the rows they move, so a page of
  -- a bulk replay and a batch that share rows wait for each other instead of deadlocking.
  with locked as materialized (
    select id from deliveries
    where ${inArray(deliveries.id, input.ids)} and organization_id = ${input.organizationId}
    order by id for update
  ),
  replayed as (
    update deliveries set
      status = 'pending', dead_reason = null, auto_attempt_count = 0, next_attempt_at = null, delivered_at = null, parked_at = null,
      claimed_by_job = null, lease_expires_at = null, updated_at = now(), pending_since = now()
    from locked
    -- The ids named again, so that the update reads only their weeks' partitions.
    where deliveries.id = locked.id and ${inArray(deliveries.id, input.ids)} and deliveries.organization_id = ${input.organizationId}
      -- A filtered row is routed again by its filters, not replayed (replay-delivery.ts routeAgain).
      and ${noAttemptInFlight} and deliveries.status <> 'filtered'
      -- Not to a deleted destination: its row goes, and nothing would take the delivery (end-destination-deliveries.ts).
      and exists (select 1 from destinations x where x.id = deliveries.destination_id and x.deleted_at is null)
    returning deliveries.id, deliveries.endpoint_id, deliveries.destination_id, deliveries.external_id
  ),
  -- The replayed deliveries' dedupe keys put back. Retention deletes an expired week's keys before it drops the
  -- week (lib/retention/drop-expired-delivery-weeks.ts), and a delivery replayed meanwhile stays (the week is
  -- looked at again before the drop): with its key, a provider's retry of its event id is still a duplicate. A
  -- key a newer delivery of the same event id holds stays that one's.
  kept as (
    -- The key names the request (a row for a further destination is the request's id, ':' and its own: lib/ids.ts).
    insert into delivery_keys (endpoint_id, external_id, delivery_id)
    select distinct r.endpoint_id, r.external_id, split_part(r.id, ':', 1) from replayed r
    on conflict do nothing
  )
  select r.id, r.endpoint_id, r.destination_id from replayed r`;
