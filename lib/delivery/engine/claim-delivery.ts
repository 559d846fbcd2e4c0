// The first half of an attempt: a job's claim of its delivery. Claims made at the same time by a
// worker's jobs go together (micro-batcher.ts; a lone claim is a batch of one), in one short
// transaction of two statements: park those whose endpoint is paused or looks full, and take the
// slot locks of the others' organizations and endpoints (in one order, so two batches cannot
// deadlock); then decide every claim in one statement, each endpoint's claims in job order against
// its free slots. A claimed delivery is `delivering`, with a lease in the job's name; its attempts
// row is written when the attempt ends. After the commit, one look per endpoint for parked
// deliveries and free slots (endpoint-slots.ts: no lost wake-up). Raw SQL: this is the hot path.
import type postgres from "postgres";
import { getSql } from "@/db";
import type { DeliverTrigger } from "@/lib/queue/enqueue";
import {
  endpointInFlightSql, NOTHING_TO_HAND_ON, ORG_SLOT_LOCK_NAMESPACE, orgInFlightSql, rawRunner, SHARD_MASK, SLOT_LOCK_NAMESPACE, takeLook, wakeNeededMany,
  type ParkedLook,
} from "./endpoint-slots";
import { MicroBatcher, sharedBatcher } from "./micro-batcher";
import { PARKED_HERE, PARKED_POSITION } from "./parked-position";
import { pipelinedTransaction } from "./pipelined-transaction";
import type { DeliverySettings } from "./settings";

/** Why a job does not attempt: gone, already final, another live attempt, a retry not yet due, parked. */
export type ClaimRefusal = "missing" | "settled" | "in_flight" | "not_due" | "paused" | "saturated";

export interface ClaimedAttempt {
  deliveryId: string;
  organizationId: string;
  endpointId: string;
  /** When the attempt began (the database's clock); its attempts row is written when it ends. */
  startedAt: Date;
  /** 1-based, over the delivery's whole life (x-inbox-attempt). */
  attemptNumber: number;
  /** Attempts since the last replay, this one included; maxAttempts counts these. */
  seriesNumber: number;
  trigger: DeliverTrigger;
  headers: Record<string, string>;
  body: Buffer;
  destinationUrl: string;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseSeconds: number;
  outboundSecretEncrypted: string | null;
  /** This job's earlier run died mid-attempt (or another's claim lapsed); that attempt was marked interrupted. */
  tookOver: boolean;
}

export type ClaimResult = { verdict: "claimed"; attempt: ClaimedAttempt } | { verdict: ClaimRefusal };

/** A claim's row, from the claim statement or a chain's claim in the finish statement (finish-attempt.ts). */
export interface ClaimRow {
  verdict: ClaimRefusal | "claim";
  took_over: boolean;
  delivery_id: string;
  organization_id: string | null;
  started_at: Date | null;
  attempt_count: number | null;
  auto_attempt_count: number | null;
  trigger: DeliverTrigger | null;
  headers: Record<string, string> | null;
  body: Buffer | null;
  destination_url: string;
  timeout_ms: number;
  max_attempts: number;
  retry_base_seconds: number;
  outbound_secret_encrypted: string | null;
}

/**
 * What claiming a delivery (d) for a job writes, in the claim statement and in a chain's claim in
 * the finish statement (finish-attempt.ts). `ep` is the delivery's endpoint.
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

/** What a claim statement's row means. */
export function claimResult(row: ClaimRow | undefined, endpointId: string): ClaimResult {
  if (!row) return { verdict: "missing" };
  if (row.verdict !== "claim") return { verdict: row.verdict };
  return {
    verdict: "claimed",
    attempt: {
      deliveryId: row.delivery_id,
      organizationId: row.organization_id!,
      endpointId,
      startedAt: row.started_at!,
      attemptNumber: row.attempt_count!,
      seriesNumber: row.auto_attempt_count!,
      trigger: row.trigger!,
      headers: row.headers ?? {},
      body: row.body ?? Buffer.alloc(0),
      destinationUrl: row.destination_url,
      timeoutMs: row.timeout_ms,
      maxAttempts: row.max_attempts,
      retryBaseSeconds: row.retry_base_seconds,
      outboundSecretEncrypted: row.outbound_secret_encrypted,
      tookOver: row.took_over,
    },
  };
}

// A due delivery of an endpoint that is paused or looks full (or whose organization looks full) is
// parked without the slot locks (parking never exceeds a cap; the look after the commit catches a
// slot freed meanwhile), so a backlog's first pass through the queue does not queue on the locks;
// then the organizations and endpoints of the rest are locked, organizations first, each in one order.
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
    update deliveries d set parked_at = ${PARKED_POSITION}, next_attempt_at = null, updated_at = now()
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
// Data-modifying CTEs always run, read or not.
const CLAIM = `
  with i as (
    -- No delivery named: the endpoint's oldest parked one (in the parked index's order).
    select r.ord, r.endpoint_id, r.job_id, r.trigger, coalesce(r.delivery_id, (
        select p.id from deliveries p where p.endpoint_id = r.endpoint_id and p.parked_at is not null
        order by p.parked_at, p.id limit 1)) as delivery_id
    from json_to_recordset($1::text::json) as r(ord int, delivery_id text, endpoint_id text, job_id text, trigger text)
  ),
  cur as (
    select d.id, d.endpoint_id, d.organization_id, d.status, d.next_attempt_at, d.claimed_by_job, d.lease_expires_at,
      d.attempt_count, d.updated_at
    from deliveries d join i on d.id = i.delivery_id and d.endpoint_id = i.endpoint_id
    -- Not one this transaction has just parked (PARK_EARLY_THEN_LOCK).
    where not ${PARKED_HERE}
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
    where d.id = v.id and v.verdict = 'claim'
    returning ${claimedReturning("v.trigger = 'replay'")}
  ),
  parked as (
    update deliveries d set
      status = 'pending', claimed_by_job = null, lease_expires_at = null,
      parked_at = coalesce(d.parked_at, ${PARKED_POSITION}), next_attempt_at = null, updated_at = now()
    from verdict v
    where d.id = v.id and v.verdict in ('paused', 'saturated', 'org_saturated')
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
    c.organization_id, c.attempt_count, c.auto_attempt_count, c.trigger, c.started_at, c.headers, c.body,
    ep.destination_url, ep.timeout_ms, ep.max_attempts, ep.retry_base_seconds, ep.outbound_secret_encrypted
  from verdict v join ep on ep.id = v.endpoint_id
  left join claimed c on c.id = v.id`;

const INTERRUPTED = "interrupted: the worker stopped during this attempt, so its outcome is unknown";

interface Claim {
  /** Null: the endpoint's oldest parked delivery. */
  deliveryId: string | null;
  endpointId: string;
  jobId: string;
  trigger: DeliverTrigger;
}

/**
 * A claim's result, its delivery's endpoint (null when the delivery is gone), and what the look
 * after the commit saw there (told to the first claim of an endpoint in a batch only).
 */
export type Claimed = ClaimResult & { endpointId: string | null; look: ParkedLook };

type EarlyRow = { delivery_id: string | null; paused: boolean | null };

/**
 * The claim's two statements, for a pipelined transaction: park early and take the locks, then
 * claim. Claims of the same delivery must not share them.
 */
export function claimStatements(tx: postgres.ReservedSql, claims: Claim[], settings: DeliverySettings): [Promise<EarlyRow[]>, Promise<(ClaimRow & { ord: number })[]>] {
  const rows = claims.map((c, ord) => ({ ord, delivery_id: c.deliveryId, endpoint_id: c.endpointId, job_id: c.jobId, trigger: c.trigger }));
  return [
    tx.unsafe<EarlyRow[]>(
      PARK_EARLY_THEN_LOCK,
      [JSON.stringify(rows), settings.endpointConcurrency, SLOT_LOCK_NAMESPACE, settings.orgConcurrency, ORG_SLOT_LOCK_NAMESPACE],
      { prepare: true },
    ).execute(),
    tx.unsafe<(ClaimRow & { ord: number })[]>(
      CLAIM,
      [JSON.stringify(rows), settings.endpointConcurrency, settings.leaseMarginMs / 1000, settings.orgConcurrency, INTERRUPTED],
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

async function claimMany(sql: postgres.Sql, claims: Claim[], settings: DeliverySettings): Promise<Claimed[]> {
  // One claim per delivery in a statement: a second job for the same delivery goes in the next one,
  // and finds it claimed.
  const seen = new Set<string | null>();
  const first = claims.filter((c) => !seen.has(c.deliveryId) && seen.add(c.deliveryId));
  const later = claims.filter((c) => !first.includes(c));
  const endpointIds = [...new Set(first.map((c) => c.endpointId))];
  const { results, after } = await pipelinedTransaction<[unknown, EarlyRow[], (ClaimRow & { ord: number })[]], [Map<string, ParkedLook>]>(
    sql,
    (tx) => [
      tx`set local synchronous_commit = off`.execute(), // see DURABILITY in endpoint-slots.ts
      ...claimStatements(tx, first, settings),
    ],
    // A claim that parks looks again after its commit: a slot may have freed meanwhile (endpoint-slots.ts).
    (tx) => [wakeNeededMany(rawRunner(tx), { endpointIds, caps: settings })],
  );
  const [looks] = after;
  const byClaim = new Map<Claim, Claimed>();
  claimResults(first, results[1], results[2]).forEach((result, i) => {
    const { endpointId } = first[i]!;
    byClaim.set(first[i]!, { ...result, endpointId, look: takeLook(looks, endpointId) });
  });
  if (later.length > 0) (await claimMany(sql, later, settings)).forEach((claimed, i) => byClaim.set(later[i]!, claimed));
  return claims.map((claim) => byClaim.get(claim)!);
}

/**
 * Claims the delivery for this job, batched with the worker's other claims. The caller brings
 * together a parked delivery and a free slot that the look after the commit saw (hand-on-slots.ts).
 */
export async function claimDelivery(input: {
  deliveryId: string;
  /** Known from the job's payload; looked up when missing (jobs enqueued before it was added). */
  endpointId?: string;
  jobId: string;
  trigger: DeliverTrigger;
  settings: DeliverySettings;
}): Promise<Claimed> {
  const sql = getSql();
  const { deliveryId, jobId, trigger, settings } = input;
  let endpointId = input.endpointId;
  if (!endpointId) {
    const [row] = await sql<{ endpoint_id: string }[]>`select endpoint_id from deliveries where id = ${deliveryId}`;
    if (!row) return { verdict: "missing", endpointId: null, look: NOTHING_TO_HAND_ON };
    endpointId = row.endpoint_id;
  }
  const batcher = sharedBatcher(sql, `claim/${settings.endpointConcurrency}/${settings.orgConcurrency}/${settings.leaseMarginMs}`, () =>
    new MicroBatcher((claims: Claim[]) => claimMany(sql, claims, settings), { maxBatch: 100, maxConcurrent: 1 }));
  return batcher.submit({ deliveryId, endpointId, jobId, trigger });
}

/**
 * The oldest delivery at this endpoint still claimed by this job, which an earlier run of it began
 * (or reached by a chain) before its worker died: taken over (its lost attempt recorded
 * interrupted), or "missing" when there is none.
 */
export async function claimLeftByJob(input: { endpointId: string; jobId: string; settings: DeliverySettings }): Promise<Claimed> {
  const [row] = await getSql()<{ id: string }[]>`
    select id from deliveries
    where endpoint_id = ${input.endpointId} and status = 'delivering' and claimed_by_job = ${input.jobId}
    order by received_at, id limit 1`;
  if (!row) return { verdict: "missing", endpointId: null, look: NOTHING_TO_HAND_ON };
  return claimDelivery({ deliveryId: row.id, endpointId: input.endpointId, jobId: input.jobId, trigger: "auto", settings: input.settings });
}
