// CLAIM, the second of the claim's two statements (after PARK_EARLY_THEN_LOCK, sql/park-early-then-lock.ts,
// under the slot locks it took): decides every claim of the batch in one statement, so one snapshot, each
// destination's claims in job order against its free slots, then each organization's. Each delivery row is locked
// first (in id order), so a concurrent replay or bury is seen in its committed state. Data-modifying CTEs
// always run, read or not. Its rows mean what claimed-attempt.ts claimResult says.
//
// $1: the claims (json: ord, delivery_id or null for the destination's oldest parked delivery, destination_id,
// job_id, trigger, and lease_seconds for a pull's lease, ../lease-deliveries.ts, whose job_id is the lease id); $2:
// the destination's cap; $3: the lease's margin past the destination's timeout (seconds); $4: the organization's cap;
// $5: the error recorded for an attempt taken over; $6 (and $7): the batch's bounds (lib/storage/batch-id-range.ts:
// the least and greatest of its ids, or, when a claim names no delivery, its organizations' floor).
import { statementPerWeek, withinIdBounds, type BoundsShape } from "@/lib/storage/batch-id-range";
import { rateTokensNow } from "./rate-tokens";
import { SHARD_MASK } from "../destination-slots";

export const CLAIM = statementPerWeek((own: BoundsShape) => `
  with i as (
    -- No delivery named: the destination's oldest parked one, in the parked index's order (destination, parked_at, id),
    -- between the least and greatest id parked there (two probes of parked_deliveries' primary key, which holds
    -- exactly the deliveries parked at any snapshot), so only those weeks' parked index is read.
    select r.ord, r.destination_id, r.job_id, r.trigger, r.lease_seconds, ${
      own.kind === "range"
        ? "r.delivery_id"
        : `coalesce(r.delivery_id, (
        select p.id from deliveries p where p.destination_id = r.destination_id and p.parked_at is not null
          and p.id between (select min(pk.delivery_id) from parked_deliveries pk where pk.destination_id = r.destination_id)
            and (select max(pk.delivery_id) from parked_deliveries pk where pk.destination_id = r.destination_id)
          ${withinIdBounds(own, "p.id", "$6", "$7")}
        order by p.parked_at, p.id limit 1))`
    } as delivery_id
    from json_to_recordset($1::text::json) as r(ord int, delivery_id text, destination_id text, job_id text, trigger text, lease_seconds float8)
  ),
  cur as (
    select d.id, d.destination_id, d.organization_id, d.status, d.next_attempt_at, d.claimed_by_job, d.lease_expires_at,
      d.attempt_count, d.updated_at, d.ordering_value
    from deliveries d join i on d.id = i.delivery_id and d.destination_id = i.destination_id
    -- Not one this transaction has just parked (PARK_EARLY_THEN_LOCK): parked_at no longer says so (it may be
    -- received_at), updated_at = now() does.
    where not (d.parked_at is not null and d.updated_at = now()) ${withinIdBounds(own, "d.id", "$6", "$7")}
    order by d.id for update of d
  ),
  ep as (
    select e.id, e.organization_id, e.paused, e.url as destination_url, e.timeout_ms, e.max_attempts, e.retry_base_seconds, e.outbound_secret_encrypted,
      e.rate_per_second, e.ordering_key, e.type,
      -- A rate-limited destination's bucket now: what it held, refilled at its rate since, up to its burst. On
      -- clock_timestamp(), read here with the destination's slot lock held: a claim that waited for the lock must
      -- not spend a token as of when its transaction began (the attempts' starts, stamped so too, keep the pace).
      case when e.rate_per_second is not null then ${rateTokensNow("e")} end as tokens,
      clock_timestamp() as looked_at
    from destinations e where e.id in (select destination_id from i)
  ),
  -- A delivery still delivering whose claim is this job's (its earlier run died) or has lapsed is
  -- taken over: the attempt it replaces held a slot, which it keeps.
  first_look as (
    select i.ord, cur.id, cur.destination_id, i.job_id, i.trigger, cur.status = 'delivering' as took_over,
      case
        when cur.status in ('delivered', 'dead', 'filtered') then 'settled'
        when cur.status = 'delivering' and cur.claimed_by_job is distinct from i.job_id and cur.lease_expires_at > now() then 'in_flight'
        when cur.status = 'pending' and cur.next_attempt_at > now() + interval '1 second' then 'not_due'
        when ep.paused then 'paused'
        -- A pull destination is never pushed to: a job's claim parks its delivery, where pulls take it (a lease).
        when ep.type = 'pull' and i.lease_seconds is null then 'pull'
        -- Ordered: an earlier delivery (by id: by receipt) of the same value still open, pending or retrying, goes
        -- first (open_ordered_deliveries, migration 0039); this one parks until it settles (its finish's look, or a
        -- bury's, wakes the line).
        when cur.status = 'pending' and ep.ordering_key is not null and cur.ordering_value is not null and exists (
          select 1 from open_ordered_deliveries o where o.destination_id = cur.destination_id
            and o.ordering_value = cur.ordering_value and o.delivery_id < cur.id) then 'ordered'
        else 'candidate'
      end as verdict
    from i join cur on cur.id = i.delivery_id join ep on ep.id = cur.destination_id
  ),
  -- An destination's new candidates take its free slots in job order (a takeover, holding one already,
  -- needs the count without it under the cap), then an organization's remaining candidates take
  -- its free slots the same way; the rest park.
  destination_fit as (
    select f.ord, f.id, f.destination_id, f.job_id, f.trigger, f.took_over, ep.organization_id,
      case
        when f.verdict <> 'candidate' then f.verdict
        when (select coalesce(sum(s.in_flight), 0) from destination_slots s where s.destination_id = f.destination_id)
          + case when f.took_over then 0
          else row_number() over (partition by f.destination_id, f.verdict, f.took_over order by f.ord) end <= $2::int then 'candidate'
        else 'saturated'
      end as verdict
    from first_look f join ep on ep.id = f.destination_id
  ),
  -- Each organization's attempts in flight, summed once, a pull destination's leases left out (see PARK_EARLY_THEN_LOCK's orgs).
  org_busy as materialized (
    select o.organization_id,
      (select coalesce(sum(s.in_flight), 0) from destinations oe join destination_slots s on s.destination_id = oe.id
        where oe.organization_id = o.organization_id and oe.type <> 'pull') as n
    from (select distinct organization_id from ep) o
  ),
  verdict as (
    select f.ord, f.id, f.destination_id, f.job_id, f.trigger, f.took_over, f.organization_id,
      case
        when f.verdict <> 'candidate' then f.verdict
        when b.n + case when f.took_over then 0
          else row_number() over (partition by f.organization_id, f.verdict, f.took_over order by f.ord) end <= $4::int then 'claim'
        else 'org_saturated'
      end as verdict
    from destination_fit f join org_busy b on b.organization_id = f.organization_id
  ),
  -- A rate-limited destination's new claims take one whole token each, in job order; the rest park until
  -- tokens come (wake-rate-limited.ts). Under the destination's slot lock, so exact across workers. A takeover
  -- started its attempt already and takes none.
  rated as (
    select v.ord, v.id, v.destination_id, v.job_id, v.trigger, v.took_over, v.organization_id,
      case
        when v.verdict = 'claim' and not v.took_over and ep.tokens is not null
          and row_number() over (partition by v.destination_id, v.verdict, v.took_over order by v.ord) > floor(ep.tokens) then 'rate_limited'
        else v.verdict
      end as verdict
    from verdict v join ep on ep.id = v.destination_id
  ),
  -- What the claims took of each rate-limited destination's bucket.
  spent as (
    update destinations e set rate_tokens = ep.tokens - coalesce(taken.n, 0), rate_refilled_at = ep.looked_at
    from ep left join (select r.destination_id, count(*)::int as n from rated r where r.verdict = 'claim' and not r.took_over group by 1) taken
      on taken.destination_id = ep.id
    where e.id = ep.id and ep.tokens is not null
  ),
  -- The attempt a dead worker was making (claimed at updated_at) is recorded as interrupted, unless
  -- it was recorded already (its finish committed; only the reply was lost).
  interrupted as (
    insert into attempts (organization_id, delivery_id, number, trigger, started_at, error)
    select cur.organization_id, cur.id, cur.attempt_count, 'auto', cur.updated_at, $5
    from rated v join cur on cur.id = v.id
    where v.took_over and v.verdict in ('claim', 'paused', 'pull', 'saturated', 'org_saturated')
    on conflict (delivery_id, number) do nothing
  ),
  -- Refused for the organization's cap: the destination waits for an organization slot (destination-slots.ts).
  marked as (
    insert into org_waiting_destinations (organization_id, destination_id)
    -- Not a pull destination: its parked deliveries wait for pulls, never a slot handed on.
    select distinct v.organization_id, v.destination_id from rated v join ep on ep.id = v.destination_id
    where v.verdict = 'org_saturated' and ep.type <> 'pull'
    order by 1, 2
    on conflict do nothing
  ),
  -- The claimed state, as a chain's claim in FINISH (sql/finish.ts) writes it too; a pull's lease lasts its own time.
  claimed as (
    update deliveries d set status = 'delivering', claimed_by_job = v.job_id,
      lease_expires_at = now() + make_interval(secs => coalesce(i.lease_seconds, ep.timeout_ms / 1000.0 + $3::float8)),
      attempt_count = d.attempt_count + 1, auto_attempt_count = d.auto_attempt_count + 1,
      parked_at = null, next_attempt_at = null, updated_at = now()
    from rated v join ep on ep.id = v.destination_id join i on i.ord = v.ord
    where d.id = v.id and v.verdict = 'claim' ${withinIdBounds(own, "d.id", "$6", "$7")}
    returning d.id, d.organization_id, d.endpoint_id, d.attempt_count, d.auto_attempt_count, d.received_at, d.event_type, d.external_id,
      -- The first attempt after a replay is the replay's, whichever job makes it.
      case when d.auto_attempt_count = 1 and (d.attempt_count > 1 or v.trigger = 'replay') then 'replay' else 'auto' end as trigger,
      clock_timestamp() as started_at
  ),
  -- Parked in line as PARK_EARLY_THEN_LOCK parks (its early CTE says why), unless parked already.
  parked as (
    update deliveries d set
      status = 'pending', claimed_by_job = null, lease_expires_at = null,
      parked_at = coalesce(d.parked_at, case when d.attempt_count = 0 then least(d.received_at, now()) else now() end),
      next_attempt_at = null, updated_at = now()
    from rated v
    where d.id = v.id and v.verdict in ('paused', 'pull', 'saturated', 'org_saturated', 'rate_limited', 'ordered') ${withinIdBounds(own, "d.id", "$6", "$7")}
  ),
  -- A new attempt takes a slot in its job's shard; a takeover that parks instead gives back the
  -- slot of the attempt it replaced. Summed per shard, so each slot row is written once.
  slot_change as (
    select c.destination_id, c.organization_id, c.shard, sum(c.n)::int as n from (
      select v.destination_id, v.organization_id, (hashtext(v.job_id) & ${SHARD_MASK})::smallint as shard, 1 as n
      from rated v where v.verdict = 'claim' and not v.took_over
      union all
      select v.destination_id, v.organization_id, (hashtext(cur.claimed_by_job) & ${SHARD_MASK})::smallint, -1
      from rated v join cur on cur.id = v.id where v.took_over and v.verdict in ('paused', 'pull', 'saturated', 'org_saturated', 'rate_limited', 'ordered')
    ) c group by 1, 2, 3
  ),
  counted as (
    insert into destination_slots (destination_id, shard, organization_id, in_flight)
    select c.destination_id, c.shard, c.organization_id, c.n from slot_change c where c.n > 0
    order by 1, 2
    on conflict (destination_id, shard) do update set in_flight = destination_slots.in_flight + excluded.in_flight
  ),
  uncounted as (
    update destination_slots s set in_flight = greatest(0, s.in_flight + c.n)
    from slot_change c where c.n < 0 and s.destination_id = c.destination_id and s.shard = c.shard
  )
  -- The claimed delivery's payload, in the claim's own round trip: not locked, never updated, no lock to wait for.
  select v.ord, case when v.verdict = 'org_saturated' then 'saturated' else v.verdict end as verdict, v.took_over, v.id as delivery_id,
    c.organization_id, c.endpoint_id, c.attempt_count, c.auto_attempt_count, c.trigger, c.started_at, p.headers, p.body,
    c.received_at, c.event_type, c.external_id, ep.destination_url, ep.timeout_ms, ep.max_attempts, ep.retry_base_seconds, ep.outbound_secret_encrypted
  from rated v join ep on ep.id = v.destination_id
  left join claimed c on c.id = v.id
  -- A request's row for another destination than its default shares the request's payload (lib/ids.ts deliveryRowId).
  left join delivery_payloads p on p.delivery_id = split_part(c.id, ':', 1) ${withinIdBounds(own, "p.delivery_id", "$6", "$7")}`);
