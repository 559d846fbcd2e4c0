// The claim's two statements, run in one short pipelined transaction for a batch of claims (a lone
// claim is a batch of one): park those whose endpoint is paused or looks full, and take the slot
// locks of the others' organizations and endpoints (in one order, so two batches cannot deadlock);
// then decide every claim in one statement, each endpoint's claims in job order against its free
// slots. Raw SQL: this is the hot path. Run by claim-delivery.ts, and by hand-on-slots.ts for a chain.
import type postgres from "postgres";
import type { DeliverTrigger } from "@/lib/queue/enqueue";
import { batchIdBounds, fromWeek, statementPerWeek, withinIdRange } from "@/lib/storage/batch-id-range";
import { floorOfEndpoints } from "@/lib/storage/delivery-id-floor";
import { claimedReturning, claimedState, claimResult, payloadJoin, type ClaimResult, type ClaimRow } from "./claimed-attempt";
import { endpointInFlightSql, ORG_SLOT_LOCK_NAMESPACE, orgInFlightSql, SHARD_MASK, SLOT_LOCK_NAMESPACE } from "./endpoint-slots";
import { PARKED_HERE, PARKED_POSITION, parkedIdRange } from "./parked-position";
import type { DeliverySettings } from "./settings";

// A due delivery of an endpoint that is paused or looks full (or whose organization looks full) is
// parked without the slot locks (parking never exceeds a cap; the look after the commit catches a
// slot freed meanwhile), so a backlog's first pass through the queue does not queue on the locks;
// then the organizations and endpoints of the rest are locked, organizations first, each in one order.
// `ranged`: every claim names its delivery, and $6 and $7 are the least and greatest of their ids
// (lib/storage/batch-id-range.ts: the statement then reads only those weeks' partitions); otherwise $6 is
// the least delivery id floor of the claims' organizations, and it reads the weeks from there on. `from`: the
// start of that first id's week, written in the text so that the plan holds only the weeks from there on
// (batch-id-range.ts fromWeek).
const parkEarlyThenLock = (ranged: boolean, from: string) => `
  with i as (
    select * from json_to_recordset($1::text::json) as i(delivery_id text, endpoint_id text)
  ),
  -- Each organization's count is summed once (materialized: a planner may otherwise redo it per row).
  orgs as materialized (
    select o.organization_id, ${orgInFlightSql("o.organization_id")} >= $4::int as org_full
    from (select distinct e.organization_id from endpoints e where e.id in (select endpoint_id from i)) o
  ),
  e as (
    select e.id, e.organization_id, e.paused, ${endpointInFlightSql("e.id")} >= $2::int as endpoint_full, orgs.org_full
    from endpoints e join orgs on orgs.organization_id = e.organization_id
    where e.id in (select endpoint_id from i)
  ),
  early as (
    update deliveries d set parked_at = ${PARKED_POSITION}, next_attempt_at = null, updated_at = now()
    from i join e on e.id = i.endpoint_id
    where d.id = i.delivery_id and d.endpoint_id = i.endpoint_id and d.status = 'pending' and d.parked_at is null
      ${withinIdRange(ranged, "d.id", "$6", "$7", from)}
      and (d.next_attempt_at is null or d.next_attempt_at <= now() + interval '1 second')
      and (e.paused or e.endpoint_full or e.org_full)
    returning d.id, d.endpoint_id, e.paused
  ),
  marked as (
    insert into org_waiting_endpoints (organization_id, endpoint_id)
    select distinct e.organization_id, e.id from early join e on e.id = early.endpoint_id
    where not e.paused and e.org_full
    order by 1, 2
    on conflict do nothing
  ),
  claiming as (
    select i.endpoint_id from i where not exists (select 1 from early where early.id = i.delivery_id)
  ),
  to_lock as (
    select 0 as kind, $5::text as namespace, e.organization_id as name from e where e.id in (select endpoint_id from claiming)
    union
    select 1, $3::text, endpoint_id from claiming
    order by 1, 3
  )
  select early.id as delivery_id, early.paused from early
  union all
  select null, null from to_lock t cross join lateral (select pg_advisory_xact_lock(hashtext(t.namespace), hashtext(t.name))) l`;

// The claim statement (one statement, so one snapshot, after the slot locks). Each delivery row is
// locked first (in id order), so a concurrent replay or bury is seen in its committed state.
// Data-modifying CTEs always run, read or not. `ranged` as for parkEarlyThenLock.
const claim = (ranged: boolean, from: string) => `
  with i as (
    -- No delivery named: the endpoint's oldest parked one (in the parked index's order).
    select r.ord, r.endpoint_id, r.job_id, r.trigger, ${
      ranged
        ? "r.delivery_id"
        : `coalesce(r.delivery_id, (
        select p.id from deliveries p where p.endpoint_id = r.endpoint_id and p.parked_at is not null
          and p.id between ${parkedIdRange("r.endpoint_id")} and p.id >= $6::text ${fromWeek("p.id", from)}
        order by p.parked_at, p.id limit 1))`
    } as delivery_id
    from json_to_recordset($1::text::json) as r(ord int, delivery_id text, endpoint_id text, job_id text, trigger text)
  ),
  cur as (
    select d.id, d.endpoint_id, d.organization_id, d.status, d.next_attempt_at, d.claimed_by_job, d.lease_expires_at,
      d.attempt_count, d.updated_at
    from deliveries d join i on d.id = i.delivery_id and d.endpoint_id = i.endpoint_id
    -- Not one this transaction has just parked (parkEarlyThenLock).
    where not ${PARKED_HERE} ${withinIdRange(ranged, "d.id", "$6", "$7", from)}
    order by d.id for update of d
  ),
  ep as (
    select e.id, e.organization_id, e.paused, e.destination_url, e.timeout_ms, e.max_attempts, e.retry_base_seconds, e.outbound_secret_encrypted
    from endpoints e where e.id in (select endpoint_id from i)
  ),
  -- A delivery still delivering whose claim is this job's (its earlier run died) or has lapsed is
  -- taken over: the attempt it replaces held a slot, which it keeps.
  first_look as (
    select i.ord, cur.id, cur.endpoint_id, i.job_id, i.trigger, cur.status = 'delivering' as took_over,
      case
        when cur.status in ('delivered', 'dead') then 'settled'
        when cur.status = 'delivering' and cur.claimed_by_job is distinct from i.job_id and cur.lease_expires_at > now() then 'in_flight'
        when cur.status = 'pending' and cur.next_attempt_at > now() + interval '1 second' then 'not_due'
        when ep.paused then 'paused'
        else 'candidate'
      end as verdict
    from i join cur on cur.id = i.delivery_id join ep on ep.id = cur.endpoint_id
  ),
  -- An endpoint's new candidates take its free slots in job order (a takeover, holding one already,
  -- needs the count without it under the cap), then an organization's remaining candidates take
  -- its free slots the same way; the rest park.
  endpoint_fit as (
    select f.ord, f.id, f.endpoint_id, f.job_id, f.trigger, f.took_over, ep.organization_id,
      case
        when f.verdict <> 'candidate' then f.verdict
        when ${endpointInFlightSql("f.endpoint_id")} + case when f.took_over then 0
          else row_number() over (partition by f.endpoint_id, f.verdict, f.took_over order by f.ord) end <= $2::int then 'candidate'
        else 'saturated'
      end as verdict
    from first_look f join ep on ep.id = f.endpoint_id
  ),
  org_busy as materialized (
    select o.organization_id, ${orgInFlightSql("o.organization_id")} as n
    from (select distinct organization_id from ep) o
  ),
  verdict as (
    select f.ord, f.id, f.endpoint_id, f.job_id, f.trigger, f.took_over, f.organization_id,
      case
        when f.verdict <> 'candidate' then f.verdict
        when b.n + case when f.took_over then 0
          else row_number() over (partition by f.organization_id, f.verdict, f.took_over order by f.ord) end <= $4::int then 'claim'
        else 'org_saturated'
      end as verdict
    from endpoint_fit f join org_busy b on b.organization_id = f.organization_id
  ),
  -- The attempt a dead worker was making (claimed at updated_at) is recorded as interrupted, unless
  -- it was recorded already (its finish committed; only the reply was lost).
  interrupted as (
    insert into attempts (organization_id, delivery_id, number, trigger, started_at, error)
    select cur.organization_id, cur.id, cur.attempt_count, 'auto', cur.updated_at, $5
    from verdict v join cur on cur.id = v.id
    where v.took_over and v.verdict in ('claim', 'paused', 'saturated', 'org_saturated')
    on conflict (delivery_id, number) do nothing
  ),
  -- Refused for the organization's cap: the endpoint waits for an organization slot (endpoint-slots.ts).
  marked as (
    insert into org_waiting_endpoints (organization_id, endpoint_id)
    select distinct v.organization_id, v.endpoint_id from verdict v where v.verdict = 'org_saturated'
    order by 1, 2
    on conflict do nothing
  ),
  claimed as (
    update deliveries d set ${claimedState("v.job_id", "$3::float8")}
    from verdict v join ep on ep.id = v.endpoint_id
    where d.id = v.id and v.verdict = 'claim' ${withinIdRange(ranged, "d.id", "$6", "$7", from)}
    returning ${claimedReturning("v.trigger = 'replay'")}
  ),
  parked as (
    update deliveries d set
      status = 'pending', claimed_by_job = null, lease_expires_at = null,
      parked_at = coalesce(d.parked_at, ${PARKED_POSITION}), next_attempt_at = null, updated_at = now()
    from verdict v
    where d.id = v.id and v.verdict in ('paused', 'saturated', 'org_saturated') ${withinIdRange(ranged, "d.id", "$6", "$7", from)}
  ),
  -- A new attempt takes a slot in its job's shard; a takeover that parks instead gives back the
  -- slot of the attempt it replaced. Summed per shard, so each slot row is written once.
  slot_change as (
    select c.endpoint_id, c.organization_id, c.shard, sum(c.n)::int as n from (
      select v.endpoint_id, v.organization_id, (hashtext(v.job_id) & ${SHARD_MASK})::smallint as shard, 1 as n
      from verdict v where v.verdict = 'claim' and not v.took_over
      union all
      select v.endpoint_id, v.organization_id, (hashtext(cur.claimed_by_job) & ${SHARD_MASK})::smallint, -1
      from verdict v join cur on cur.id = v.id where v.took_over and v.verdict in ('paused', 'saturated', 'org_saturated')
    ) c group by 1, 2, 3
  ),
  counted as (
    insert into endpoint_slots (endpoint_id, shard, organization_id, in_flight)
    select c.endpoint_id, c.shard, c.organization_id, c.n from slot_change c where c.n > 0
    order by 1, 2
    on conflict (endpoint_id, shard) do update set in_flight = endpoint_slots.in_flight + excluded.in_flight
  ),
  uncounted as (
    update endpoint_slots s set in_flight = greatest(0, s.in_flight + c.n)
    from slot_change c where c.n < 0 and s.endpoint_id = c.endpoint_id and s.shard = c.shard
  )
  select v.ord, case when v.verdict = 'org_saturated' then 'saturated' else v.verdict end as verdict, v.took_over, v.id as delivery_id,
    c.organization_id, c.attempt_count, c.auto_attempt_count, c.trigger, c.started_at, p.headers, p.body,
    ep.destination_url, ep.timeout_ms, ep.max_attempts, ep.retry_base_seconds, ep.outbound_secret_encrypted
  from verdict v join ep on ep.id = v.endpoint_id
  left join claimed c on c.id = v.id
  ${payloadJoin("c", withinIdRange(ranged, "p.delivery_id", "$6", "$7", from))}`;

const PARK_EARLY_THEN_LOCK = statementPerWeek((variant: ClaimIdBounds["variant"], from: string) => parkEarlyThenLock(variant === "ranged", from));
const CLAIM = statementPerWeek((variant: ClaimIdBounds["variant"], from: string) => claim(variant === "ranged", from));

const INTERRUPTED = "interrupted: the worker stopped during this attempt, so its outcome is unknown";

export interface Claim {
  /** Null: the endpoint's oldest parked delivery. */
  deliveryId: string | null;
  endpointId: string;
  jobId: string;
  trigger: DeliverTrigger;
}

export type EarlyRow = { delivery_id: string | null; paused: boolean | null };

export type ClaimIdBounds = Awaited<ReturnType<typeof batchIdBounds>>;

/** Which weeks the claims' statements read (batchIdBounds): asked before their transaction. */
export function claimIdBounds(sql: postgres.Sql, claims: Claim[]): Promise<ClaimIdBounds> {
  return batchIdBounds(claims.map((c) => c.deliveryId), () => floorOfEndpoints(sql, [...new Set(claims.map((c) => c.endpointId))]));
}

/**
 * The claim's two statements, for a pipelined transaction: park early and take the locks, then
 * claim. Claims of the same delivery must not share them.
 */
export function claimStatements(
  tx: postgres.ReservedSql,
  claims: Claim[],
  settings: DeliverySettings,
  { variant, bounds, from }: ClaimIdBounds,
): [Promise<EarlyRow[]>, Promise<(ClaimRow & { ord: number })[]>] {
  const rows = claims.map((c, ord) => ({ ord, delivery_id: c.deliveryId, endpoint_id: c.endpointId, job_id: c.jobId, trigger: c.trigger }));
  return [
    tx.unsafe<EarlyRow[]>(
      PARK_EARLY_THEN_LOCK(variant, from),
      [JSON.stringify(rows), settings.endpointConcurrency, SLOT_LOCK_NAMESPACE, settings.orgConcurrency, ORG_SLOT_LOCK_NAMESPACE, ...bounds],
      { prepare: true },
    ).execute(),
    tx.unsafe<(ClaimRow & { ord: number })[]>(
      CLAIM(variant, from),
      [JSON.stringify(rows), settings.endpointConcurrency, settings.leaseMarginMs / 1000, settings.orgConcurrency, INTERRUPTED, ...bounds],
      { prepare: true },
    ).execute(),
  ];
}

/** The claims' results from claimStatements' rows, in order. */
export function claimResults(claims: Claim[], early: EarlyRow[], decided: (ClaimRow & { ord: number })[]): ClaimResult[] {
  const parkedEarly = new Map(early.filter((row) => row.delivery_id !== null).map((row) => [row.delivery_id!, row.paused]));
  const byOrd = new Map(decided.map((row) => [row.ord, row]));
  return claims.map((claim, ord) => {
    const paused = claim.deliveryId === null ? undefined : parkedEarly.get(claim.deliveryId);
    return paused !== undefined ? { verdict: paused ? "paused" : "saturated" } : claimResult(byOrd.get(ord), claim.endpointId);
  });
}
