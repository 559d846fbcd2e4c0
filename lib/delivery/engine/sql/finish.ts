// FINISH: records the attempts of a batch that ended together (run by finish-attempt.ts) and moves each
// delivery on: delivered, dead, or pending with its retry's job; and does with each attempt's slot what its
// SlotFate says: freed, or passed on (a chain: the same job claims the destination's oldest parked delivery in
// this statement, claimed as CLAIM in sql/claim.ts claims, and the count does not change). Rows are locked in a
// fixed order (deliveries by id, then slot rows by destination and shard; parked deliveries are taken with skip
// locked), so two batches, here or in another worker process, cannot deadlock on each other.
//
// $1: the attempts' ends (json, one row each); $2: the lease's margin past the destination's timeout (seconds), for
// a chain's claim; $3: the least delivery id floor of the chains' organizations, from which on they look
// (lib/storage/delivery-id-floor.ts floorOfDestinations, not the weeks only another organization keeps); $4 (and
// $5): the batch's own bounds (lib/storage/batch-id-range.ts). `chains`: null when no attempt passes its slot
// on, and the statement made for that claims nothing.
import { addJobsSql, deliverJobSpecSql } from "@/lib/queue/enqueue";
import { statementPerWeek, withinIdBounds, type BoundsShape } from "@/lib/storage/batch-id-range";
import { SHARD_MASK } from "../destination-slots";

export const FINISH = statementPerWeek((own: BoundsShape, chains: BoundsShape | null) => `
  with i as (
    select * from json_to_recordset($1::text::json) as i(ord int, organization_id text, delivery_id text, destination_id text,
      job_id text, number int, trigger text, started_at timestamptz, duration_ms int, status_code smallint,
      response_body text, request_headers jsonb, response_headers jsonb, error text, status text, reason text, dead_reason text, retry_in_ms int, uncount int, slot text)
  ),
  cur as (
    select d.id, d.status, d.claimed_by_job from deliveries d
    where d.id in (select delivery_id from i) ${withinIdBounds(own, "d.id", "$4", "$5")} order by d.id for update
  ),
  -- A delivery deleted meanwhile (its destination was) has no row to record against.
  recorded as (
    insert into attempts (organization_id, delivery_id, number, trigger, started_at, duration_ms, status_code, response_body, request_headers, response_headers, error)
    select i.organization_id, i.delivery_id, i.number, i.trigger, i.started_at, i.duration_ms, i.status_code, i.response_body, i.request_headers, i.response_headers, i.error
    from i join cur on cur.id = i.delivery_id
    -- Once per (delivery, number): a re-run of this finish records nothing twice; a real outcome
    -- replaces an "interrupted" placeholder the rescue sweep or a takeover wrote meanwhile.
    on conflict (delivery_id, number) do update set
      trigger = excluded.trigger, started_at = excluded.started_at, duration_ms = excluded.duration_ms,
      status_code = excluded.status_code, response_body = excluded.response_body, request_headers = excluded.request_headers,
      response_headers = excluded.response_headers, error = excluded.error
      where attempts.error like 'interrupted:%'
  ),
  mine as (
    select i.* from i join cur on cur.id = i.delivery_id and cur.claimed_by_job = i.job_id
    -- A bury during the attempt stands, unless the destination took it after all.
    where cur.status = 'delivering' or (cur.status = 'dead' and i.status = 'delivered')
  ),
  moved as (
    update deliveries d set
      status = mine.status,
      last_status_code = mine.status_code,
      last_error = mine.reason,
      -- Why it is dead (exhausted or rejected), null in any other state: a bury it outlived no longer holds.
      dead_reason = case when mine.status = 'dead' then mine.dead_reason end,
      -- A retry is due by the database's clock, which every claim and sweep compares it with.
      next_attempt_at = case when mine.status = 'pending' then now() + make_interval(secs => mine.retry_in_ms / 1000.0) end,
      auto_attempt_count = d.auto_attempt_count - mine.uncount,
      delivered_at = case when mine.status = 'delivered' then now() else d.delivered_at end,
      claimed_by_job = null, lease_expires_at = null, updated_at = now()
    from mine where d.id = mine.delivery_id ${withinIdBounds(own, "d.id", "$4", "$5")}
    returning d.id, d.destination_id, d.status, d.next_attempt_at
  ),
  -- A retry's job, due when the delivery is. Keyed, so a replay replaces it and a bury removes it.
  retried as (
    select ${addJobsSql(`select ${deliverJobSpecSql({ deliveryId: "m.id", destinationId: "m.destination_id", trigger: "'auto'", runAt: "m.next_attempt_at", keyed: true })}
      from moved m where m.status = 'pending'`)} as jobs
    where exists (select 1 from moved where moved.status = 'pending')
  ),
  -- The attempts whose slot is still theirs (no other job took their claim over).
  holders as (
    select i.ord, i.destination_id, i.job_id, i.slot from i join cur on cur.id = i.delivery_id and cur.claimed_by_job = i.job_id
  ),
  ${
    chains === null
      ? `-- No chains, no pairs; $2 and $3 (the lease margin and the floor, which only chains read) are typed here, as
  -- PostgreSQL must type every parameter of a statement.
  pairs as (select null::int as ord, $2::float8 as lease_margin_seconds, $3::text as floor where false),`
      : `-- Chains: each destination's oldest parked deliveries (none while it is paused), one per attempt passing its slot
  -- on, in the parked index's order (status not named: sql/wake-parked.ts says why), between the least and
  -- greatest id parked there (two probes of parked_deliveries' primary key), from the chains' floor on.
  want as (
    select h.ord, h.destination_id, h.job_id, row_number() over (partition by h.destination_id order by h.ord) as r
    from holders h where h.slot = 'pass-on'
  ),
  demand as (select want.destination_id, count(*)::int as n from want group by 1),
  nxt as (
    select p.id, p.destination_id, row_number() over (partition by p.destination_id order by p.parked_at, p.id) as r
    from demand cross join lateral (
      select d.id, d.destination_id, d.parked_at from deliveries d
      where d.destination_id = demand.destination_id and d.parked_at is not null
        and d.id between (select min(pk.delivery_id) from parked_deliveries pk where pk.destination_id = demand.destination_id)
          and (select max(pk.delivery_id) from parked_deliveries pk where pk.destination_id = demand.destination_id)
        ${withinIdBounds(chains, "d.id", "$3")}
        -- Not while it is paused, nor for a rate-limited or ordered one: its next start waits for a token or for an
        -- earlier delivery of its value, which only a claim checks (sql/claim.ts); the look wakes those instead.
        and not exists (select 1 from destinations e where e.id = demand.destination_id
          and (e.paused or e.rate_per_second is not null or e.ordering_key is not null))
      order by d.parked_at, d.id limit demand.n
      for update skip locked
    ) p
  ),
  -- Each attempt whose slot went on, and the delivery it went to.
  pairs as (
    select want.ord, want.job_id, nxt.id from want join nxt on nxt.destination_id = want.destination_id and nxt.r = want.r
  ),
  ep as (
    select e.id, e.url as destination_url, e.timeout_ms, e.max_attempts, e.retry_base_seconds, e.outbound_secret_encrypted
    from destinations e where e.id in (select destination_id from demand)
  ),
  -- The claimed state, as CLAIM (sql/claim.ts) writes it.
  claimed as (
    update deliveries d set status = 'delivering', claimed_by_job = pairs.job_id,
      lease_expires_at = now() + make_interval(secs => ep.timeout_ms / 1000.0 + $2::float8),
      attempt_count = d.attempt_count + 1, auto_attempt_count = d.auto_attempt_count + 1,
      parked_at = null, next_attempt_at = null, updated_at = now()
    from pairs, ep
    where d.id = pairs.id and ep.id = d.destination_id ${withinIdBounds(chains, "d.id", "$3")}
    returning pairs.ord, d.id, d.organization_id, d.endpoint_id, d.attempt_count, d.auto_attempt_count,
      -- The first attempt after a replay is the replay's; a chain's job is no replay's, so only if the
      -- delivery says so itself.
      case when d.auto_attempt_count = 1 and d.attempt_count > 1 then 'replay' else 'auto' end as trigger,
      clock_timestamp() as started_at,
      ep.destination_url, ep.timeout_ms, ep.max_attempts, ep.retry_base_seconds, ep.outbound_secret_encrypted
  ),`
  }
  -- The slots not passed on are free again.
  freed as (
    select h.destination_id, (hashtext(h.job_id) & ${SHARD_MASK})::smallint as shard, count(*)::int as n
    from holders h where not exists (select 1 from pairs where pairs.ord = h.ord)
    group by 1, 2
  ),
  slots as (
    select s.destination_id, s.shard from destination_slots s join freed using (destination_id, shard)
    order by s.destination_id, s.shard for update of s
  ),
  released as (
    update destination_slots s set in_flight = greatest(0, s.in_flight - freed.n)
    from freed join slots using (destination_id, shard)
    where s.destination_id = freed.destination_id and s.shard = freed.shard
    returning s.destination_id
  ),
  -- The circuit breaker (API.md "Automatic pause"): each destination's failed attempts in a row, since when, and
  -- why the latest failed, from the attempts this finish applied (a re-run applies none; our own shutdown's
  -- "interrupted" is no failure). A success restarts the count. Written only on a failure or a first success
  -- after failures, so a healthy destination's row is not touched. Once at least auto_pause_failures in a row
  -- have failed for auto_pause_minutes, the destination is paused, auto_paused_at saying it was the breaker
  -- (lib/alerts/evaluate-auto-pauses.ts opens its incident). Rows locked by id, after the slots (the wait on
  -- released), in the order the claim takes them (slots, then its destination's rate tokens).
  outcomes as (
    select m.destination_id, m.status, m.started_at, m.reason,
      max(m.started_at) filter (where m.status = 'delivered') over (partition by m.destination_id) as last_success
    from mine m where m.uncount = 0
  ),
  tally as (
    select o.destination_id, bool_or(o.last_success is not null) as succeeded,
      count(*) filter (where o.status <> 'delivered' and (o.last_success is null or o.started_at > o.last_success))::int as failures,
      min(o.started_at) filter (where o.status <> 'delivered' and (o.last_success is null or o.started_at > o.last_success)) as first_failure,
      (array_agg(o.reason order by o.started_at desc) filter (where o.status <> 'delivered'))[1] as reason
    from outcomes o group by 1
  ),
  counted as (
    select e.id, t.reason,
      case when t.succeeded then 0 else e.consecutive_failures end + t.failures as failures,
      case when t.failures = 0 then null when t.succeeded then t.first_failure else coalesce(e.failing_since, t.first_failure) end as since,
      e.paused, e.auto_pause_failures, e.auto_pause_minutes
    from destinations e join tally t on t.destination_id = e.id
    where (t.failures > 0 or e.consecutive_failures > 0) and (select count(*) from released) >= 0
    order by e.id for update of e
  ),
  tripped as (
    select c.*, not c.paused and c.auto_pause_failures is not null and c.failures >= c.auto_pause_failures
      and c.since <= now() - make_interval(mins => c.auto_pause_minutes) as trips
    from counted c
  ),
  breaker as (
    update destinations e set consecutive_failures = t.failures, failing_since = t.since,
      last_failure_reason = coalesce(t.reason, e.last_failure_reason),
      paused = e.paused or t.trips, auto_paused_at = case when t.trips then now() else e.auto_paused_at end
    from tripped t where e.id = t.id
  )
  -- What a chain claimed, as CLAIM's row (claimed-attempt.ts claimResult), with its payload.
  select i.ord, exists (select 1 from mine where mine.ord = i.ord) as applied, m.next_attempt_at,
    ${
      chains === null
        ? "null as verdict, null as delivery_id"
        : `case when c.id is null then null else 'claim' end as verdict, false as took_over, c.id as delivery_id,
    c.organization_id, c.endpoint_id, c.attempt_count, c.auto_attempt_count, c.trigger, c.started_at, p.headers, p.body,
    c.destination_url, c.timeout_ms, c.max_attempts, c.retry_base_seconds, c.outbound_secret_encrypted`
    }
  from i ${
    chains === null
      ? ""
      : `left join claimed c on c.ord = i.ord
  -- Keyed by the request's id, which a row for another destination than its default begins with (lib/ids.ts).
  left join delivery_payloads p on p.delivery_id = split_part(c.id, ':', 1) ${withinIdBounds(chains, "p.delivery_id", "$3")}`
  }
  left join moved m on m.id = i.delivery_id and m.status = 'pending' and exists (select 1 from mine where mine.ord = i.ord)
  cross join (select count(*) from retried) as retries_added
  order by i.ord`);
