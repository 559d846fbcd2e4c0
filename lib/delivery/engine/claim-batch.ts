// A job's claim of its own delivery, for many jobs in one transaction (micro-batcher.ts): park those
// whose endpoint looks full, take the slot locks of the others' endpoints (in one order, so two
// batches cannot deadlock), then decide every claim in one statement, each endpoint's claims in job
// order against its free slots; after the commit, look once per endpoint for parked deliveries and
// free slots (endpoint-slots.ts).
// A claim that would take over a lapsed or interrupted attempt is left to the single-claim path
// (claim-delivery.ts), which records the interrupted attempt; so is a second job for a delivery
// already in the batch, which goes after it.
import type postgres from "postgres";
import type { DeliverTrigger } from "@/lib/queue/enqueue";
import { claimResult, type ClaimResult, type ClaimRow } from "./claim-delivery";
import {
  endpointInFlightSql, ORG_SLOT_LOCK_NAMESPACE, orgInFlightSql, rawRunner, SHARD_MASK, SLOT_LOCK_NAMESPACE, takeLook, wakeNeededMany, type ParkedLook,
} from "./endpoint-slots";
import { MicroBatcher, sharedBatcher } from "./micro-batcher";
import { pipelinedTransaction } from "./pipelined-transaction";
import type { DeliverySettings } from "./settings";

export interface OwnClaim {
  deliveryId: string;
  endpointId: string;
  jobId: string;
  trigger: DeliverTrigger;
}

/** `single`: not decided here; claim it on its own (claim-delivery.ts). */
export type BatchedClaim = { single: true } | (ClaimResult & { single?: false; look: ParkedLook });

/**
 * What claiming a delivery (d) for a job writes, in the batch statements (here and finish-batch.ts;
 * claimStatement in claim-delivery.ts writes the same for one). `ep` is the delivery's endpoint.
 */
export function claimedState(jobId: string, leaseMarginSeconds: string): string {
  return `status = 'delivering', claimed_by_job = ${jobId},
    lease_expires_at = now() + make_interval(secs => ep.timeout_ms / 1000.0 + ${leaseMarginSeconds}),
    attempt_count = d.attempt_count + 1, auto_attempt_count = d.auto_attempt_count + 1,
    parked_at = null, next_attempt_at = null, updated_at = now()`;
}

/** What a claim hands back (ClaimRow's delivery columns). `replayJob`: SQL, true when the claiming job is a replay's. */
export function claimedReturning(replayJob: string): string {
  return `d.id, d.organization_id, d.attempt_count, d.auto_attempt_count, d.headers, d.body,
    -- The first attempt after a replay is the replay's, whichever job makes it.
    case when d.auto_attempt_count = 1 and (d.attempt_count > 1 or ${replayJob}) then 'replay' else 'auto' end as trigger,
    clock_timestamp() as started_at`;
}

// A due delivery of an endpoint that is paused or looks full (or whose organization looks full) is
// parked without the slot locks, as claimDelivery parks one (parking never exceeds a cap; the look
// after the commit catches a slot freed meanwhile); then the organizations and endpoints of the rest
// are locked, organizations first, each in one order.
const PARK_EARLY_THEN_LOCK = `
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
    update deliveries d set parked_at = now(), next_attempt_at = null, updated_at = now()
    from i join e on e.id = i.endpoint_id
    where d.id = i.delivery_id and d.endpoint_id = i.endpoint_id and d.status = 'pending' and d.parked_at is null
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
  to_lock as (
    select 0 as kind, $5::text as namespace, e.organization_id as name from e
    where e.id in (select i.endpoint_id from i where i.delivery_id not in (select id from early))
    union
    select 1, $3::text, i.endpoint_id from i where i.delivery_id not in (select id from early)
    order by 1, 3
  )
  select early.id as delivery_id, early.paused from early
  union all
  select null, null from to_lock t cross join lateral (select pg_advisory_xact_lock(hashtext(t.namespace), hashtext(t.name))) l`;

// Mirrors claimStatement (claim-delivery.ts) for `deliveryId` targets that take no slot over.
const CLAIM_MANY = `
  with i as (
    select * from json_to_recordset($1::text::json) as i(ord int, delivery_id text, endpoint_id text, job_id text, trigger text)
  ),
  cur as (
    select d.id, d.endpoint_id, d.status, d.next_attempt_at, d.claimed_by_job, d.lease_expires_at
    from deliveries d join i on d.id = i.delivery_id and d.endpoint_id = i.endpoint_id
    -- Not one this transaction has just parked (PARK_EARLY_THEN_LOCK).
    where d.parked_at is distinct from now()
    order by d.id for update of d
  ),
  ep as (
    select e.id, e.organization_id, e.paused, e.destination_url, e.timeout_ms, e.max_attempts, e.retry_base_seconds, e.outbound_secret_encrypted
    from endpoints e where e.id in (select endpoint_id from i)
  ),
  first_look as (
    select i.ord, cur.id, cur.endpoint_id, i.job_id, i.trigger,
      case
        when cur.status in ('delivered', 'dead') then 'settled'
        when cur.status = 'delivering' and cur.claimed_by_job is distinct from i.job_id and cur.lease_expires_at > now() then 'in_flight'
        when cur.status = 'delivering' then 'takeover'
        when cur.status = 'pending' and cur.next_attempt_at > now() + interval '1 second' then 'not_due'
        when ep.paused then 'paused'
        else 'candidate'
      end as verdict
    from i join cur on cur.id = i.delivery_id join ep on ep.id = cur.endpoint_id
  ),
  -- An endpoint's candidates take its free slots in job order, then an organization's remaining
  -- candidates take its free slots in job order; the rest park.
  endpoint_fit as (
    select f.ord, f.id, f.endpoint_id, f.job_id, f.trigger, ep.organization_id,
      case
        when f.verdict <> 'candidate' then f.verdict
        when ${endpointInFlightSql("f.endpoint_id")}
          + row_number() over (partition by f.endpoint_id, f.verdict order by f.ord) <= $2::int then 'candidate'
        else 'saturated'
      end as verdict
    from first_look f join ep on ep.id = f.endpoint_id
  ),
  org_busy as materialized (
    select o.organization_id, ${orgInFlightSql("o.organization_id")} as n
    from (select distinct organization_id from ep) o
  ),
  verdict as (
    select f.ord, f.id, f.endpoint_id, f.job_id, f.trigger, f.organization_id,
      case
        when f.verdict <> 'candidate' then f.verdict
        when b.n + row_number() over (partition by f.organization_id, f.verdict order by f.ord) <= $4::int then 'claim'
        else 'org_saturated'
      end as verdict
    from endpoint_fit f join org_busy b on b.organization_id = f.organization_id
  ),
  marked as (
    insert into org_waiting_endpoints (organization_id, endpoint_id)
    select distinct v.organization_id, v.endpoint_id from verdict v where v.verdict = 'org_saturated'
    order by 1, 2
    on conflict do nothing
  ),
  claimed as (
    update deliveries d set ${claimedState("v.job_id", "$3::float8")}
    from verdict v join ep on ep.id = v.endpoint_id
    where d.id = v.id and v.verdict = 'claim'
    returning ${claimedReturning("v.trigger = 'replay'")}
  ),
  parked as (
    update deliveries d set
      status = 'pending', claimed_by_job = null, lease_expires_at = null,
      parked_at = coalesce(d.parked_at, now()), next_attempt_at = null, updated_at = now()
    from verdict v
    where d.id = v.id and v.verdict in ('paused', 'saturated', 'org_saturated')
  ),
  counted as (
    insert into endpoint_slots (endpoint_id, shard, organization_id, in_flight)
    select v.endpoint_id, (hashtext(v.job_id) & ${SHARD_MASK})::smallint, ep.organization_id, count(*)::int
    from verdict v join ep on ep.id = v.endpoint_id
    where v.verdict = 'claim'
    group by 1, 2, 3 order by 1, 2
    on conflict (endpoint_id, shard) do update set in_flight = endpoint_slots.in_flight + excluded.in_flight
  )
  select v.ord, case when v.verdict = 'org_saturated' then 'saturated' else v.verdict end as verdict, false as took_over, v.id as delivery_id,
    c.organization_id, c.attempt_count, c.auto_attempt_count, c.trigger, c.started_at, c.headers, c.body,
    ep.destination_url, ep.timeout_ms, ep.max_attempts, ep.retry_base_seconds, ep.outbound_secret_encrypted
  from verdict v join ep on ep.id = v.endpoint_id
  left join claimed c on c.id = v.id`;

/** CLAIM_MANY's rows: a claim row, or `takeover` (left to the single-claim path). */
type ClaimManyRow = Omit<ClaimRow, "verdict"> & { ord: number; verdict: ClaimRow["verdict"] | "takeover" };

async function claimMany(sql: postgres.Sql, claims: OwnClaim[], settings: DeliverySettings): Promise<BatchedClaim[]> {
  // One claim per delivery here; a second job for the same delivery is decided after this one.
  const seen = new Set<string>();
  const batched = claims.filter((c) => !seen.has(c.deliveryId) && seen.add(c.deliveryId));
  const endpointIds = [...new Set(batched.map((c) => c.endpointId))];
  const rows = batched.map((c, ord) => ({ ord, delivery_id: c.deliveryId, endpoint_id: c.endpointId, job_id: c.jobId, trigger: c.trigger }));
  const { results, after } = await pipelinedTransaction<
    [unknown, { delivery_id: string | null; paused: boolean | null }[], ClaimManyRow[]],
    [Map<string, ParkedLook>]
  >(
    sql,
    (tx) => [
      tx`set local synchronous_commit = off`.execute(), // see DURABILITY in endpoint-slots.ts
      tx.unsafe<{ delivery_id: string | null; paused: boolean | null }[]>(
        PARK_EARLY_THEN_LOCK,
        [JSON.stringify(rows), settings.endpointConcurrency, SLOT_LOCK_NAMESPACE, settings.orgConcurrency, ORG_SLOT_LOCK_NAMESPACE],
        { prepare: true },
      ).execute(),
      tx.unsafe<ClaimManyRow[]>(
        CLAIM_MANY,
        [JSON.stringify(rows), settings.endpointConcurrency, settings.leaseMarginMs / 1000, settings.orgConcurrency],
        { prepare: true },
      ).execute(),
    ],
    (tx) => [wakeNeededMany(rawRunner(tx), { endpointIds, caps: settings })],
  );
  const parkedEarly = new Map(results[1].filter((row) => row.delivery_id !== null).map((row) => [row.delivery_id!, row.paused]));
  const decided = new Map(results[2].map((row) => [row.ord, row]));
  const looks = after[0];
  const byDelivery = new Map<string, BatchedClaim>();
  batched.forEach((claim, ord) => {
    const row = decided.get(ord);
    const look = takeLook(looks, claim.endpointId);
    const early = parkedEarly.get(claim.deliveryId);
    if (early !== undefined) byDelivery.set(claim.deliveryId, { verdict: early ? "paused" : "saturated", look });
    else if (row?.verdict === "takeover") byDelivery.set(claim.deliveryId, { single: true });
    else byDelivery.set(claim.deliveryId, { ...claimResult(row ? [row as ClaimRow] : [], claim.endpointId), look });
  });
  const inBatch = new Set(batched);
  return claims.map((claim) => (inBatch.has(claim) ? byDelivery.get(claim.deliveryId)! : { single: true }));
}

/** Claims the job's own delivery, batched with the worker's other such claims. */
export function claimOwnInBatch(sql: postgres.Sql, claim: OwnClaim, settings: DeliverySettings): Promise<BatchedClaim> {
  const batcher = sharedBatcher(sql, `claim/${settings.endpointConcurrency}/${settings.orgConcurrency}/${settings.leaseMarginMs}`, () =>
    new MicroBatcher((claims: OwnClaim[]) => claimMany(sql, claims, settings), { maxBatch: 100, maxConcurrent: 1 }));
  return batcher.submit(claim);
}
