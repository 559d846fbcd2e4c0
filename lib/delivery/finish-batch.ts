// The commonest end of an attempt — delivered or dead, no retry to enqueue, no slot to pass on —
// for many attempts in one statement (micro-batcher.ts): record each attempt, move each delivery
// still claimed by its job, free their slots; then, after the commit, look once per endpoint for
// parked deliveries waiting for a slot (endpoint-slots.ts: no lost wake-up).
// The single-attempt path in finish-attempt.ts handles everything else.
import type postgres from "postgres";
import { rawRunner, SHARD_MASK, takeLook, wakeNeededMany, type ParkedLook } from "./endpoint-slots";
import { MicroBatcher } from "./micro-batcher";
import { pipelinedTransaction } from "./pipelined-transaction";

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
}

export interface FinalOutcomeResult {
  /** False when the delivery was no longer this attempt's (buried or gone meanwhile). */
  applied: boolean;
  look: ParkedLook;
}

// Rows are locked in a fixed order (deliveries by id, then slot rows by endpoint and shard), so two
// batches, here or in another worker process, cannot deadlock on each other.
const FINISH_MANY = `
  with i as (
    select * from json_to_recordset($1::text::json) as i(ord int, organization_id text, delivery_id text, endpoint_id text,
      job_id text, number int, trigger text, started_at timestamptz, duration_ms int, status_code smallint,
      response_body text, error text, status text, reason text)
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
  -- Each attempt's slot is free again, unless another job took its claim over.
  freed as (
    select i.endpoint_id, (hashtext(i.job_id) & ${SHARD_MASK})::smallint as shard, count(*)::int as n
    from i join cur on cur.id = i.delivery_id and cur.claimed_by_job = i.job_id
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
  select i.ord, exists (select 1 from moved where moved.id = i.delivery_id) as applied from i order by i.ord`;

async function finishMany(sql: postgres.Sql, outcomes: FinalOutcome[], concurrency: number): Promise<FinalOutcomeResult[]> {
  const rows = outcomes.map((o, ord) => ({
    ord, organization_id: o.organizationId, delivery_id: o.deliveryId, endpoint_id: o.endpointId, job_id: o.jobId,
    number: o.attemptNumber, trigger: o.trigger, started_at: o.startedAt.toISOString(), duration_ms: o.durationMs,
    status_code: o.statusCode, response_body: o.responseBody, error: o.error, status: o.status, reason: o.reason,
  }));
  const endpointIds = [...new Set(outcomes.map((o) => o.endpointId))];
  const { results, after } = await pipelinedTransaction<[unknown, { ord: number; applied: boolean }[]], [Map<string, ParkedLook>]>(
    sql,
    (tx) => [
      tx`set local synchronous_commit = off`.execute(), // see DURABILITY in endpoint-slots.ts
      tx.unsafe<{ ord: number; applied: boolean }[]>(FINISH_MANY, [JSON.stringify(rows)], { prepare: true }).execute(),
    ],
    (tx) => [wakeNeededMany(rawRunner(tx), { endpointIds, concurrency })],
  );
  const [, applied] = results;
  const [looks] = after;
  return outcomes.map((o, i) => ({ applied: applied[i]?.applied ?? false, look: takeLook(looks, o.endpointId) }));
}

const batchers = new WeakMap<postgres.Sql, Map<number, MicroBatcher<FinalOutcome, FinalOutcomeResult>>>();

/** Records a delivered or dead attempt, batched with the worker's other such ends. */
export function finishFinal(sql: postgres.Sql, outcome: FinalOutcome, concurrency: number): Promise<FinalOutcomeResult> {
  let byConcurrency = batchers.get(sql);
  if (!byConcurrency) batchers.set(sql, (byConcurrency = new Map()));
  let batcher = byConcurrency.get(concurrency);
  if (!batcher) {
    batcher = new MicroBatcher((outcomes) => finishMany(sql, outcomes, concurrency), { maxBatch: 100, maxConcurrent: 1 });
    byConcurrency.set(concurrency, batcher);
  }
  return batcher.submit(outcome);
}
