// PARK_EARLY_THEN_LOCK, the first of the claim's two statements (run by claim-delivery.ts claimStatements,
// before CLAIM in sql/claim.ts, in one pipelined transaction). A due delivery of an destination that is paused, a
// pull destination (never pushed to: its parked deliveries are what pulls lease), or looks full (or whose
// organization looks full) is parked without the slot locks (parking never exceeds a cap;
// the look after the commit catches a slot freed meanwhile), so a backlog's first pass through the queue does
// not queue on the locks; then the organizations and destinations of the rest are locked, organizations first,
// each in one order, so two batches cannot deadlock.
//
// $1: the claims (json: delivery_id, destination_id); $2: the destination's cap; $3: the destinations' slot lock
// namespace; $4: the organization's cap; $5: the organizations' slot lock namespace; $6 (and $7): the batch's
// bounds (lib/storage/batch-id-range.ts: the least and greatest of its ids, or its organizations' floor).
import { statementPerWeek, withinIdBounds, type BoundsShape } from "@/lib/storage/batch-id-range";

export const PARK_EARLY_THEN_LOCK = statementPerWeek((own: BoundsShape) => `
  with i as (
    select * from json_to_recordset($1::text::json) as i(delivery_id text, destination_id text)
  ),
  -- Each organization's attempts in flight, summed once (materialized: a planner may otherwise redo it per
  -- row): its destinations' slot rows, found through the destinations (rarely written) and each destination's slot key,
  -- so those hot rows need no second index (which every non-HOT update of them would add an entry to). A pull
  -- destination's leases hold slots but no worker, so they do not count toward the organization's cap.
  orgs as materialized (
    select o.organization_id,
      (select coalesce(sum(s.in_flight), 0) from destinations oe join destination_slots s on s.destination_id = oe.id
        where oe.organization_id = o.organization_id and oe.type <> 'pull') >= $4::int as org_full
    from (select distinct e.organization_id from destinations e where e.id in (select destination_id from i)) o
  ),
  e as (
    select e.id, e.organization_id, e.paused, e.type,
      (select coalesce(sum(s.in_flight), 0) from destination_slots s where s.destination_id = e.id) >= $2::int as destination_full,
      orgs.org_full
    from destinations e join orgs on orgs.organization_id = e.organization_id
    where e.id in (select destination_id from i)
  ),
  -- Parked deliveries leave in parked_at order (wake-ups, chains), so parked_at is a place in line rather than
  -- the time it parked. One never attempted keeps its place by arrival (received_at): a delivery stored before
  -- a pause whose job parks it, or a woken one that finds the destination full again (a wake cannot count woken
  -- jobs not yet claimed), does not go behind later arrivals, which ingest stores parked in order of arrival
  -- while the destination is paused. A retry or a replay queues from when it parks.
  early as (
    update deliveries d set
      parked_at = case when d.attempt_count = 0 then least(d.received_at, now()) else now() end,
      next_attempt_at = null, updated_at = now()
    from i join e on e.id = i.destination_id
    where d.id = i.delivery_id and d.destination_id = i.destination_id and d.status = 'pending' and d.parked_at is null
      ${withinIdBounds(own, "d.id", "$6", "$7")}
      and (d.next_attempt_at is null or d.next_attempt_at <= now() + interval '1 second')
      and (e.paused or e.type = 'pull' or e.destination_full or e.org_full)
    returning d.id, d.destination_id, case when e.paused then 'paused' when e.type = 'pull' then 'pull' else 'saturated' end as why
  ),
  -- Parked for its organization's cap: the destination waits for an organization slot (destination-slots.ts).
  marked as (
    insert into org_waiting_destinations (organization_id, destination_id)
    select distinct e.organization_id, e.id from early join e on e.id = early.destination_id
    where not e.paused and e.type <> 'pull' and e.org_full
    order by 1, 2
    on conflict do nothing
  ),
  claiming as (
    select i.destination_id from i where not exists (select 1 from early where early.id = i.delivery_id)
  ),
  to_lock as (
    select 0 as kind, $5::text as namespace, e.organization_id as name from e where e.id in (select destination_id from claiming)
    union
    select 1, $3::text, destination_id from claiming
    order by 1, 3
  )
  select early.id as delivery_id, early.why from early
  union all
  select null, null from to_lock t cross join lateral (select pg_advisory_xact_lock(hashtext(t.namespace), hashtext(t.name))) l`);
