// The commonest ends of an attempt — delivered or dead, no retry to enqueue — for many attempts in
// one statement (micro-batcher.ts): record each attempt, move each delivery still claimed by its
// job, pass each chain's slot to a different parked delivery of its endpoint (oldest first) and
// free the other slots; then, after the commit, look once per endpoint for parked deliveries
// waiting for a freed slot (endpoint-slots.ts: no lost wake-up).
// The single-attempt path in finish-attempt.ts handles the ends that schedule a retry.
import type postgres from "postgres";
import { claimedReturning, claimedState } from "./claim-batch";
import { claimResult, type ClaimResult, type ClaimRow } from "./claim-delivery";
import { PASSED_ON, rawRunner, SHARD_MASK, takeLook, wakeNeededMany, type ParkedLook } from "./endpoint-slots";
import { MicroBatcher, sharedBatcher } from "./micro-batcher";
import { pipelinedTransaction } from "./pipelined-transaction";
import type { DeliverySettings } from "./settings";

export interface FinalOutcome {
  organizationId: string;
  deliveryId: string;
  endpointId: string;
  jobId: string;
  attemptNumber: number;
  trigger: string;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  responseBody: string | null;
  error: string | null;
  status: "delivered" | "dead";
  reason: string | null;
  /** Pass the attempt's slot straight to the endpoint's oldest parked delivery, claimed for this job (a chain). */
  passOn: boolean;
}

export interface FinalOutcomeResult {
  /** False when the delivery was no longer this attempt's (buried or gone meanwhile). */
  applied: boolean;
  /** With `passOn`: the parked delivery this job now has a claim on, if there was one. */
  next: ClaimResult | null;
  look: ParkedLook;
}

// Rows are locked in a fixed order (deliveries by id, then slot rows by endpoint and shard; parked
// deliveries are taken with skip locked), so two batches, here or in another worker process,
// cannot deadlock on each other.
const FINISH_MANY = `
  with i as (
    select * from json_to_recordset($1::text::json) as i(ord int, organization_id text, delivery_id text, endpoint_id text,
      job_id text, number int, trigger text, started_at timestamptz, duration_ms int, status_code smallint,
      response_body text, error text, status text, reason text, pass_on boolean)
  ),
  cur as (
    select d.id, d.status, d.claimed_by_job from deliveries d
    where d.id in (select delivery_id from i) order by d.id for update
  ),
  -- A delivery deleted meanwhile (its endpoint was) has no row to record against.
  recorded as (
    insert into attempts (organization_id, delivery_id, number, trigger, started_at, duration_ms, status_code, response_body, error)
    select i.organization_id, i.delivery_id, i.number, i.trigger, i.started_at, i.duration_ms, i.status_code, i.response_body, i.error
    from i join cur on cur.id = i.delivery_id
    -- Once per (delivery, number): see finish-attempt.ts.
    on conflict (delivery_id, number) do update set
      trigger = excluded.trigger, started_at = excluded.started_at, duration_ms = excluded.duration_ms,
      status_code = excluded.status_code, response_body = excluded.response_body, error = excluded.error
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
      next_attempt_at = null,
      delivered_at = case when mine.status = 'delivered' then now() else d.delivered_at end,
      claimed_by_job = null, lease_expires_at = null, updated_at = now()
    from mine where d.id = mine.delivery_id
    returning d.id
  ),
  -- The attempts whose slot is still theirs (no other job took their claim over).
  holders as (
    select i.ord, i.endpoint_id, i.job_id, i.pass_on from i join cur on cur.id = i.delivery_id and cur.claimed_by_job = i.job_id
  ),
  -- Chains: each endpoint's oldest parked deliveries (none while it is paused), one per attempt
  -- passing its slot on, in the parked index's order (status not named: claim-delivery.ts says why).
  want as (
    select h.ord, h.endpoint_id, h.job_id, row_number() over (partition by h.endpoint_id order by h.ord) as r
    from holders h where h.pass_on
  ),
  demand as (select want.endpoint_id, count(*)::int as n from want group by 1),
  nxt as (
    select p.id, p.endpoint_id, row_number() over (partition by p.endpoint_id order by p.parked_at, p.id) as r
    from demand cross join lateral (
      select d.id, d.endpoint_id, d.parked_at from deliveries d
      where d.endpoint_id = demand.endpoint_id and d.parked_at is not null
        and not exists (select 1 from endpoints e where e.id = demand.endpoint_id and e.paused)
      order by d.parked_at, d.id limit demand.n
      for update skip locked
    ) p
  ),
  pairs as (
    select want.ord, want.job_id, nxt.id from want join nxt on nxt.endpoint_id = want.endpoint_id and nxt.r = want.r
  ),
  ep as (
    select e.id, e.destination_url, e.timeout_ms, e.max_attempts, e.retry_base_seconds, e.outbound_secret_encrypted
    from endpoints e where e.id in (select endpoint_id from demand)
  ),
  claimed as (
    update deliveries d set ${claimedState("pairs.job_id", "$2::float8")}
    from pairs, ep
    where d.id = pairs.id and ep.id = d.endpoint_id
    -- A chain's job is no replay's: its next delivery is a replay's attempt only if it says so itself.
    returning pairs.ord, ${claimedReturning("false")},
      ep.destination_url, ep.timeout_ms, ep.max_attempts, ep.retry_base_seconds, ep.outbound_secret_encrypted
  ),
  -- The slots not passed on are free again.
  freed as (
    select h.endpoint_id, (hashtext(h.job_id) & ${SHARD_MASK})::smallint as shard, count(*)::int as n
    from holders h where not exists (select 1 from pairs where pairs.ord = h.ord)
    group by 1, 2
  ),
  slots as (
    select s.endpoint_id, s.shard from endpoint_slots s join freed using (endpoint_id, shard)
    order by s.endpoint_id, s.shard for update of s
  ),
  released as (
    update endpoint_slots s set in_flight = greatest(0, s.in_flight - freed.n)
    from freed join slots using (endpoint_id, shard)
    where s.endpoint_id = freed.endpoint_id and s.shard = freed.shard
  )
  select i.ord, exists (select 1 from moved where moved.id = i.delivery_id) as applied,
    case when c.id is null then null else 'claim' end as verdict, false as took_over, c.id as delivery_id,
    c.organization_id, c.attempt_count, c.auto_attempt_count, c.trigger, c.started_at, c.headers, c.body,
    c.destination_url, c.timeout_ms, c.max_attempts, c.retry_base_seconds, c.outbound_secret_encrypted
  from i left join claimed c on c.ord = i.ord
  order by i.ord`;

type FinishRow = ClaimRow & { ord: number; applied: boolean };

async function finishMany(sql: postgres.Sql, outcomes: FinalOutcome[], settings: DeliverySettings): Promise<FinalOutcomeResult[]> {
  const rows = outcomes.map((o, ord) => ({
    ord, organization_id: o.organizationId, delivery_id: o.deliveryId, endpoint_id: o.endpointId, job_id: o.jobId,
    number: o.attemptNumber, trigger: o.trigger, started_at: o.startedAt.toISOString(), duration_ms: o.durationMs,
    status_code: o.statusCode, response_body: o.responseBody, error: o.error, status: o.status, reason: o.reason, pass_on: o.passOn,
  }));
  const endpointIds = [...new Set(outcomes.map((o) => o.endpointId))];
  const { results, after } = await pipelinedTransaction<[unknown, FinishRow[]], [Map<string, ParkedLook>]>(
    sql,
    (tx) => [
      tx`set local synchronous_commit = off`.execute(), // see DURABILITY in endpoint-slots.ts
      tx.unsafe<FinishRow[]>(FINISH_MANY, [JSON.stringify(rows), settings.leaseMarginMs / 1000], { prepare: true }).execute(),
    ],
    (tx) => [wakeNeededMany(rawRunner(tx), { endpointIds, caps: settings })],
  );
  const [, finished] = results;
  const [looks] = after;
  return outcomes.map((o, i) => {
    const row = finished[i];
    const next = row?.delivery_id ? claimResult([row], o.endpointId) : null;
    // A slot passed on frees nothing, so only the attempts that freed theirs need the look.
    const look = next ? PASSED_ON : takeLook(looks, o.endpointId);
    return { applied: row?.applied ?? false, next, look };
  });
}

/** Records a delivered or dead attempt (and passes its slot on), batched with the worker's other such ends. */
export function finishFinal(sql: postgres.Sql, outcome: FinalOutcome, settings: DeliverySettings): Promise<FinalOutcomeResult> {
  const batcher = sharedBatcher(sql, `finish/${settings.endpointConcurrency}/${settings.orgConcurrency}/${settings.leaseMarginMs}`, () =>
    new MicroBatcher((outcomes: FinalOutcome[]) => finishMany(sql, outcomes, settings), { maxBatch: 100, maxConcurrent: 1 }));
  return batcher.submit(outcome);
}
