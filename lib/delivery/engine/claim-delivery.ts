// The first half of an attempt: in one short transaction under the endpoint's slot lock, decide
// whether this job may attempt the delivery now, and if so mark it `delivering` (with a lease in
// the job's name) and count the attempt (its attempts row is written when it ends, in one insert);
// if the endpoint is paused or full,
// park the delivery (pending, no job) until a slot frees. Raw SQL: this is the hot path.
import { sql as drizzleSql } from "drizzle-orm";
import type postgres from "postgres";
import { getSql } from "@/db";
import type { DeliverTrigger } from "@/lib/queue/enqueue";
import { claimOwnInBatch } from "./claim-batch";
import { lockEndpointSlots, lockOrgSlotsOfEndpoint, orgInFlightSql, rawRunner, SHARD_MASK, wakeNeeded, type ParkedLook } from "./endpoint-slots";
import { parkEarly } from "./park-early";
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

const INTERRUPTED = "interrupted: the worker stopped during this attempt, so its outcome is unknown";

/**
 * Which delivery to claim: the job's own; the endpoint's oldest parked one (a finishing attempt
 * handing its slot straight on); or one this job claimed in an earlier run that died (a chain).
 */
export type ClaimTarget = { deliveryId: string } | { nextParked: true } | { orphanOfJob: true };

export interface ClaimInput {
  target: ClaimTarget;
  /**
   * The claiming job already holds one of the endpoint's slots (its attempt just ended) and passes
   * it on: no cap check and no count change, so no slot lock is needed (finish-attempt.ts).
   */
  handover?: boolean;
  endpointId: string;
  jobId: string;
  trigger: DeliverTrigger;
  settings: DeliverySettings;
}

/**
 * The claim statement (one statement, so one snapshot: run it after the endpoint's slot lock).
 * The delivery row is locked first, so a concurrent replay or bury is seen in its committed
 * state. Data-modifying CTEs always run, read or not.
 */
export function claimStatement(tx: postgres.Sql | postgres.ReservedSql | postgres.TransactionSql, input: ClaimInput) {
  const { target, endpointId, jobId, settings } = input;
  const leaseMarginSeconds = settings.leaseMarginMs / 1000;
  const cur =
    "deliveryId" in target
      ? // Not when this transaction has just parked it without the lock (claimDelivery).
        tx`select d.id, d.organization_id, d.status, d.next_attempt_at, d.claimed_by_job, d.lease_expires_at, d.attempt_count, d.updated_at
           from deliveries d where d.id = ${target.deliveryId} and d.endpoint_id = ${endpointId} and d.parked_at is distinct from now()
           for update`
      : "nextParked" in target
        ? tx`select d.id, d.organization_id, d.status, d.next_attempt_at, d.claimed_by_job, d.lease_expires_at, d.attempt_count, d.updated_at
             from deliveries d where d.endpoint_id = ${endpointId} and d.parked_at is not null
             order by d.parked_at, d.id limit 1
             for update skip locked`
        : tx`select d.id, d.organization_id, d.status, d.next_attempt_at, d.claimed_by_job, d.lease_expires_at, d.attempt_count, d.updated_at
             from deliveries d where d.endpoint_id = ${endpointId} and d.status = 'delivering' and d.claimed_by_job = ${jobId}
             order by d.received_at, d.id limit 1
             for update skip locked`;
  // Parked deliveries leave oldest-parked first, in the parked index's own order (endpoint,
  // parked_at, id), so the planner has no other index to walk. Parked implies pending (parking sets
  // it; a claim, replay or bury clears parked_at), so status is not named: that would offer it the
  // open-deliveries index, every pending row of the endpoint.
  // A delivery handed a slot from the parked list is not parked again when there is none after all.
  const parkable = "nextParked" in target ? tx`false` : tx`true`;
  const SLOT_SHARD = (job: string) => tx`(hashtext(${job}) & ${SHARD_MASK})::smallint`;
  const handover = input.handover ? tx`true` : tx`false`;
  return tx<ClaimRow[]>`
    with cur as (${cur}),
    ep as (
      select e.organization_id, e.paused, e.destination_url, e.timeout_ms, e.max_attempts, e.retry_base_seconds, e.outbound_secret_encrypted
      from endpoints e where e.id = ${endpointId}
    ),
    -- Attempts in flight at this endpoint and across its organization, other than the one a
    -- takeover replaces (endpoint-slots.ts).
    busy as (
      select (select coalesce(sum(s.in_flight), 0) from endpoint_slots s where s.endpoint_id = ${endpointId})::int
          - (select count(*) from cur where cur.status = 'delivering')::int as n,
        ${tx.unsafe(orgInFlightSql("ep.organization_id"))}::int
          - (select count(*) from cur where cur.status = 'delivering')::int as org_n
      from ep
    ),
    verdict as (
      select cur.id,
        case
          when cur.status in ('delivered', 'dead') then 'settled'
          when cur.status = 'delivering' and cur.claimed_by_job is distinct from ${jobId}
            and cur.lease_expires_at > now() then 'in_flight'
          when cur.status = 'pending' and cur.next_attempt_at > now() + interval '1 second' then 'not_due'
          when ep.paused then 'paused'
          when (busy.n >= ${settings.endpointConcurrency} or busy.org_n >= ${settings.orgConcurrency}) and not ${handover} then 'saturated'
          else 'claim'
        end as verdict,
        cur.status = 'delivering' as took_over
      from cur, ep, busy
    ),
    -- The attempt a dead worker was making (claimed at updated_at) is recorded as interrupted.
    interrupted as (
      insert into attempts (organization_id, delivery_id, number, trigger, started_at, error)
      select cur.organization_id, cur.id, cur.attempt_count, 'auto', cur.updated_at, ${INTERRUPTED}
      from verdict join cur on cur.id = verdict.id
      where verdict.took_over and verdict.verdict in ('claim', 'paused', 'saturated')
      -- Not over an attempt already recorded (its finish committed; only the reply was lost).
      on conflict (delivery_id, number) do nothing
      returning id
    ),
    -- The same columns as claimedState and claimedReturning (claim-batch.ts), for the batch statements.
    claimed as (
      update deliveries d set
        status = 'delivering',
        claimed_by_job = ${jobId},
        lease_expires_at = now() + make_interval(secs => ep.timeout_ms / 1000.0 + ${leaseMarginSeconds}),
        attempt_count = d.attempt_count + 1,
        auto_attempt_count = d.auto_attempt_count + 1,
        parked_at = null,
        next_attempt_at = null,
        updated_at = now()
      from verdict, ep
      where d.id = verdict.id and verdict.verdict = 'claim'
      returning d.id, d.organization_id, d.attempt_count, d.auto_attempt_count, d.headers, d.body,
        -- The first attempt after a replay is the replay's, whichever job makes it.
        case when d.auto_attempt_count = 1 and (d.attempt_count > 1 or ${input.trigger} = 'replay') then 'replay' else 'auto' end as trigger,
        clock_timestamp() as started_at
    ),
    parked as (
      update deliveries d set
        status = 'pending', claimed_by_job = null, lease_expires_at = null,
        parked_at = coalesce(d.parked_at, now()), next_attempt_at = null, updated_at = now()
      from verdict
      where d.id = verdict.id and verdict.verdict in ('paused', 'saturated') and ${parkable}
      returning d.id
    ),
    -- Refused for the organization's cap: the endpoint waits for an organization slot (endpoint-slots.ts).
    marked as (
      insert into org_waiting_endpoints (organization_id, endpoint_id)
      select ep.organization_id, ${endpointId} from verdict, ep, busy
      where verdict.verdict = 'saturated' and busy.org_n >= ${settings.orgConcurrency}
      on conflict do nothing
    ),
    -- A new attempt takes a slot; a takeover keeps the slot of the attempt it replaces, or gives it
    -- back when it parks instead.
    counted as (
      insert into endpoint_slots (endpoint_id, shard, organization_id, in_flight)
      select ${endpointId}, ${SLOT_SHARD(jobId)}, ep.organization_id, 1 from verdict, ep
      where verdict.verdict = 'claim' and not verdict.took_over and not ${handover}
      on conflict (endpoint_id, shard) do update set in_flight = endpoint_slots.in_flight + 1
    ),
    uncounted as (
      update endpoint_slots s set in_flight = greatest(0, s.in_flight - 1)
      from verdict join cur on cur.id = verdict.id
      where s.endpoint_id = ${endpointId} and s.shard = (hashtext(cur.claimed_by_job) & ${SHARD_MASK})
        and verdict.took_over and verdict.verdict in ('paused', 'saturated')
    ),
    -- A handover that found nobody to pass the slot to frees it.
    released as (
      update endpoint_slots s set in_flight = greatest(0, s.in_flight - 1)
      where s.endpoint_id = ${endpointId} and s.shard = ${SLOT_SHARD(jobId)} and ${handover} and not exists (select 1 from claimed)
    )
    select verdict.verdict, verdict.took_over, verdict.id as delivery_id,
      claimed.organization_id, claimed.attempt_count, claimed.auto_attempt_count, claimed.trigger, claimed.started_at,
      claimed.headers, claimed.body,
      ep.destination_url, ep.timeout_ms, ep.max_attempts, ep.retry_base_seconds, ep.outbound_secret_encrypted
    from verdict cross join ep
    left join claimed on true`;
}

/** What a claim statement's row means. */
export function claimResult(rows: readonly ClaimRow[], endpointId: string): ClaimResult {
  const row = rows[0];
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

/**
 * Claims a delivery for this job in one short transaction under the endpoint's slot lock (one
 * round trip). `slotsToHandOn`: after the commit, parked deliveries and a free slot were seen
 * together (say, this claim parked just as a slot freed); the caller hands them on (hand-on-slots.ts).
 * `parkedSeen`: anything was parked at the endpoint after the commit (finish-attempt.ts chains then).
 */
export async function claimDelivery(input: {
  target: ClaimTarget;
  endpointId?: string;
  jobId: string;
  trigger: DeliverTrigger;
  settings: DeliverySettings;
  sql?: postgres.Sql;
}): Promise<ClaimResult & { endpointId?: string; slotsToHandOn?: boolean; parkedSeen?: boolean }> {
  const sql = input.sql ?? getSql();
  let endpointId = input.endpointId;
  if (!endpointId) {
    if (!("deliveryId" in input.target)) throw new Error("claimDelivery needs the endpoint id for this target");
    const [row] = await sql<{ endpoint_id: string }[]>`select endpoint_id from deliveries where id = ${input.target.deliveryId}`;
    if (!row) return { verdict: "missing" };
    endpointId = row.endpoint_id;
  }
  const target = input.target;
  if ("deliveryId" in target && !input.sql) {
    // The usual claim: batched with the worker's other claims of their own deliveries (claim-batch.ts).
    const batched = await claimOwnInBatch(sql, { deliveryId: target.deliveryId, endpointId, jobId: input.jobId, trigger: input.trigger }, input.settings);
    if (!batched.single) {
      const { look, single: _single, ...result } = batched;
      return { ...result, endpointId, slotsToHandOn: look.needed, parkedSeen: look.parked };
    }
  }
  const claim: ClaimInput = { ...input, endpointId };
  const skipIfParkedEarly = "deliveryId" in target ? drizzleSql`exists (select 1 from deliveries where id = ${target.deliveryId} and parked_at = now())` : undefined;
  const { results, after } = await pipelinedTransaction<[unknown, { paused: boolean }[], void, void, ClaimRow[]], [ParkedLook]>(
    sql,
    (tx) => [
      tx`set local synchronous_commit = off`.execute(), // see DURABILITY in endpoint-slots.ts
      // A due delivery of an endpoint that is paused or looks full is parked without the slot lock
      // (parking never exceeds the cap; the look after the commit catches a slot freed meanwhile),
      // so a backlog's first pass through the queue does not queue on the lock.
      "deliveryId" in target ? parkEarly(tx, { deliveryId: target.deliveryId, endpointId, settings: input.settings }) : Promise.resolve([]),
      // Organization before endpoint, as every claim takes them (endpoint-slots.ts).
      lockOrgSlotsOfEndpoint(rawRunner(tx), endpointId, skipIfParkedEarly),
      lockEndpointSlots(rawRunner(tx), endpointId, skipIfParkedEarly),
      claimStatement(tx, claim).execute(),
    ],
    // A claim that parks looks again after its commit: a slot may have freed meanwhile (endpoint-slots.ts).
    (tx) => [wakeNeeded(rawRunner(tx), { endpointId, caps: input.settings })],
  );
  const [, parkedEarly, , , rows] = results;
  const result: ClaimResult = parkedEarly[0] ? { verdict: parkedEarly[0].paused ? "paused" : "saturated" } : claimResult(rows, endpointId);
  return { ...result, endpointId, slotsToHandOn: after[0].needed, parkedSeen: after[0].parked };
}

