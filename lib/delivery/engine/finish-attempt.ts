// The second half of an attempt: record its result and move the delivery on — delivered, retry
// at the backoff (with its job), or dead — and do with the attempt's slot what its SlotFate says.
// Attempts that end at the same time go together (micro-batcher.ts; a lone one is a batch of one),
// in one statement; after the commit, one look per endpoint for parked deliveries waiting for a
// freed slot, handed on if there are (hand-on-slots.ts; endpoint-slots.ts: no lost wake-up).
import type postgres from "postgres";
import { getSql } from "@/db";
import { addJobsSql, deliverJobSpecSql } from "@/lib/queue/enqueue";
import { batchIdBounds, splitOlder, statementPerWeek, weekStartOf, weeksAfter, withinIdRange } from "@/lib/storage/batch-id-range";
import { floorOfEndpoints, floorsOfEndpoints } from "@/lib/storage/delivery-id-floor";
import { claimResult, type ClaimedAttempt, type ClaimResult, type ClaimRow } from "./claimed-attempt";
import type { Outcome } from "./classify-outcome";
import { NOTHING_TO_HAND_ON, rawRunner, SHARD_MASK, takeLook, wakeNeededMany, type ParkedLook } from "./endpoint-slots";
import { chainParts, type ChainParts } from "./finish-chains";
import { handOnLooked } from "./hand-on-slots";
import { MicroBatcher, sharedBatcher } from "./micro-batcher";
import { pipelinedTransaction } from "./pipelined-transaction";
import { retryDelayMs } from "./retry-schedule";
import type { SendOutput } from "./send-to-destination";
import type { DeliverySettings } from "./settings";

/**
 * What becomes of the endpoint slot an attempt held, once it ends:
 * - "release": it is freed; parked deliveries waiting for it are woken as jobs after the commit.
 * - "pass-on": in the same statement, the same job claims the endpoint's oldest parked delivery
 *   with it (a chain: no job to add, fetch and run, and the count does not change); freed when
 *   nothing is parked or the endpoint is paused.
 */
export type SlotFate = "release" | "pass-on";

export interface Settlement {
  /** With "pass-on": the parked delivery this job has claimed with the slot, if there was one. */
  next: ClaimResult | null;
  status: "delivered" | "pending" | "dead";
  /** When a retry is due (the database's clock). */
  nextAttemptAt: Date | null;
  reason: string | null;
  /** False when the delivery was no longer this attempt's (buried or gone meanwhile): only the attempt was recorded. */
  applied: boolean;
  /** Parked deliveries woken as jobs after the commit (a freed slot handed on). */
  woken: number;
}

/** What the delivery becomes after this attempt. Pure: the retry's wait, not its time, which is the database's. */
export function settle(attempt: ClaimedAttempt, outcome: Outcome, random: () => number = Math.random) {
  switch (outcome.kind) {
    case "delivered":
      return { status: "delivered" as const, retryInMs: null, reason: null, uncount: 0 };
    case "dead":
      return { status: "dead" as const, retryInMs: null, reason: outcome.reason, uncount: 0 };
    case "interrupted":
      // Our shutdown, not the destination's failure: again at once, and it does not count.
      return { status: "pending" as const, retryInMs: 0, reason: outcome.reason, uncount: 1 };
    case "retry": {
      if (attempt.seriesNumber >= attempt.maxAttempts) {
        const reason = `gave up after ${attempt.seriesNumber} attempt${attempt.seriesNumber === 1 ? "" : "s"} (maxAttempts ${attempt.maxAttempts}); last: ${outcome.reason}`;
        return { status: "dead" as const, retryInMs: null, reason, uncount: 0 };
      }
      const delay = retryDelayMs({ retryBaseSeconds: attempt.retryBaseSeconds, retryNumber: attempt.seriesNumber, retryAfterMs: outcome.retryAfterMs, random });
      return { status: "pending" as const, retryInMs: delay, reason: outcome.reason, uncount: 0 };
    }
  }
}

/** One attempt's end, as the finish statement takes it. */
export interface AttemptEnd {
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
  status: Settlement["status"];
  reason: string | null;
  retryInMs: number | null;
  uncount: number;
  slot: SlotFate;
}

export interface Finished {
  applied: boolean;
  nextAttemptAt: Date | null;
  next: ClaimResult | null;
  look: ParkedLook;
}

// Rows are locked in a fixed order (deliveries by id, then slot rows by endpoint and shard; parked
// deliveries are taken with skip locked), so two batches, here or in another worker process,
// cannot deadlock on each other. `ranged`: $4 and $5 are the least and greatest of the batch's delivery
// ids (lib/storage/batch-id-range.ts: its own deliveries are read in those weeks' partitions only).
// `from`: the start of $4's week, in the text (batch-id-range.ts fromWeek). `chains`: the chains' part
// (finish-chains.ts), which reads $2 and $3.
const finish = ({ ranged, from, chains }: { ranged: boolean; from: string; chains: ChainParts }) => `
  with i as (
    select * from json_to_recordset($1::text::json) as i(ord int, organization_id text, delivery_id text, endpoint_id text,
      job_id text, number int, trigger text, started_at timestamptz, duration_ms int, status_code smallint,
      response_body text, error text, status text, reason text, retry_in_ms int, uncount int, slot text)
  ),
  cur as (
    select d.id, d.status, d.claimed_by_job from deliveries d
    where d.id in (select delivery_id from i) ${withinIdRange(ranged, "d.id", "$4", "$5", from)} order by d.id for update
  ),
  -- A delivery deleted meanwhile (its endpoint was) has no row to record against.
  recorded as (
    insert into attempts (organization_id, delivery_id, number, trigger, started_at, duration_ms, status_code, response_body, error)
    select i.organization_id, i.delivery_id, i.number, i.trigger, i.started_at, i.duration_ms, i.status_code, i.response_body, i.error
    from i join cur on cur.id = i.delivery_id
    -- Once per (delivery, number): a re-run of this finish records nothing twice; a real outcome
    -- replaces an "interrupted" placeholder the rescue sweep or a takeover wrote meanwhile.
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
      -- A retry is due by the database's clock, which every claim and sweep compares it with.
      next_attempt_at = case when mine.status = 'pending' then now() + make_interval(secs => mine.retry_in_ms / 1000.0) end,
      auto_attempt_count = d.auto_attempt_count - mine.uncount,
      delivered_at = case when mine.status = 'delivered' then now() else d.delivered_at end,
      claimed_by_job = null, lease_expires_at = null, updated_at = now()
    from mine where d.id = mine.delivery_id ${withinIdRange(ranged, "d.id", "$4", "$5", from)}
    returning d.id, d.endpoint_id, d.status, d.next_attempt_at
  ),
  -- A retry's job, due when the delivery is. Keyed, so a replay replaces it and a bury removes it.
  retried as (
    select ${addJobsSql(`select ${deliverJobSpecSql({ deliveryId: "m.id", endpointId: "m.endpoint_id", trigger: "'auto'", runAt: "m.next_attempt_at", keyed: true })}
      from moved m where m.status = 'pending'`)} as jobs
    where exists (select 1 from moved where moved.status = 'pending')
  ),
  -- The attempts whose slot is still theirs (no other job took their claim over).
  holders as (
    select i.ord, i.endpoint_id, i.job_id, i.slot from i join cur on cur.id = i.delivery_id and cur.claimed_by_job = i.job_id
  ),
  ${chains.ctes}
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
  select i.ord, exists (select 1 from mine where mine.ord = i.ord) as applied, m.next_attempt_at,
    ${chains.columns}
  from i ${chains.join}
  left join moved m on m.id = i.delivery_id and m.status = 'pending' and exists (select 1 from mine where mine.ord = i.ord)
  cross join (select count(*) from retried) as retries_added
  order by i.ord`;

// `chainFrom`: "none" when no attempt passes its slot on, else the week of the chains' floor ('' for every week).
const FINISH = statementPerWeek((variant: "ranged" | "unranged", from: string, chainFrom: string) =>
  finish({ ranged: variant === "ranged", from, chains: chainParts(chainFrom === "none" ? null : chainFrom) }));

/**
 * How many weeks back a chain's floor may reach and stay in a shared finish statement: the weeks the default
 * retention (30 days) keeps, with the week it is in. An organization that keeps longer chains in a statement of
 * its own (finishAttempts).
 */
const CHAIN_FLOOR_WEEKS = 6;

type FinishRow = ClaimRow & { ord: number; applied: boolean; next_attempt_at: Date | null };

/**
 * One statement for `ends`, with at most one retry: a retry's keyed job makes add_jobs lock the
 * running job holding that key, and several such rows locked in one transaction can deadlock with
 * graphile-worker's batched completion (which shuts a 0.17.3 pool down). The other retries each
 * go in a statement of their own, at the same time.
 */
export async function finishAttempts(sql: postgres.Sql, ends: AttemptEnd[], settings: DeliverySettings): Promise<Finished[]> {
  // Attempts of deliveries weeks older than the rest, or chains from a floor further back than the default
  // retention keeps (or not known yet: ''), in a statement of their own (splitOlder), at the same time: the
  // others' does not read back to their weeks.
  const passingOn = [...new Set(ends.filter((e) => e.slot === "pass-on").map((e) => e.endpointId))];
  const floors = passingOn.length > 0 ? await floorsOfEndpoints(sql, passingOn) : new Map<string, string>();
  const { recent, older } = splitOlder(ends, (e) => {
    const floor = e.slot === "pass-on" ? floors.get(e.endpointId) : undefined;
    if (floor === undefined) return e.deliveryId;
    const counted = weeksAfter(floor, CHAIN_FLOOR_WEEKS);
    return counted < e.deliveryId ? counted : e.deliveryId;
  });
  if (older.length > 0) {
    const [first, second] = await Promise.all([finishAttempts(sql, recent, settings), finishAttempts(sql, older, settings)]);
    const byEnd = new Map<AttemptEnd, Finished>([...recent.map((end, i) => [end, first[i]!] as const), ...older.map((end, i) => [end, second[i]!] as const)]);
    return ends.map((end) => byEnd.get(end)!);
  }
  const retries = ends.filter((end) => end.status === "pending");
  if (retries.length > 1) {
    const alone = new Set(retries.slice(1));
    const together = ends.filter((end) => !alone.has(end));
    const [first, ...others] = await Promise.all([finishTogether(sql, together, settings), ...[...alone].map((end) => finishTogether(sql, [end], settings))]);
    const byEnd = new Map<AttemptEnd, Finished>(together.map((end, i) => [end, first![i]!]));
    [...alone].forEach((end, i) => byEnd.set(end, others[i]![0]!));
    return ends.map((end) => byEnd.get(end)!);
  }
  return finishTogether(sql, ends, settings);
}

async function finishTogether(sql: postgres.Sql, ends: AttemptEnd[], settings: DeliverySettings): Promise<Finished[]> {
  const rows = ends.map((e, ord) => ({
    ord, organization_id: e.organizationId, delivery_id: e.deliveryId, endpoint_id: e.endpointId, job_id: e.jobId,
    number: e.attemptNumber, trigger: e.trigger, started_at: e.startedAt.toISOString(), duration_ms: e.durationMs,
    status_code: e.statusCode, response_body: e.responseBody, error: e.error, status: e.status, reason: e.reason,
    retry_in_ms: e.retryInMs, uncount: e.uncount, slot: e.slot,
  }));
  const endpointIds = [...new Set(ends.map((e) => e.endpointId))];
  const passingOn = [...new Set(ends.filter((e) => e.slot === "pass-on").map((e) => e.endpointId))];
  const chainFloor = passingOn.length > 0 ? await floorOfEndpoints(sql, passingOn) : "";
  const { variant, bounds, from } = await batchIdBounds(ends.map((e) => e.deliveryId), () => floorOfEndpoints(sql, endpointIds));
  const statement = FINISH(variant, from, passingOn.length > 0 ? weekStartOf(chainFloor) : "none");
  const { results, after } = await pipelinedTransaction<[unknown, FinishRow[]], [Map<string, ParkedLook>]>(
    sql,
    (tx) => [
      tx`set local synchronous_commit = off`.execute(), // see DURABILITY in endpoint-slots.ts
      tx.unsafe<FinishRow[]>(statement, [JSON.stringify(rows), settings.leaseMarginMs / 1000, chainFloor, ...bounds], { prepare: true }).execute(),
    ],
    (tx) => [wakeNeededMany(rawRunner(tx), { endpointIds, caps: settings })],
  );
  const [, finished] = results;
  const [looks] = after;
  return ends.map((e, i) => {
    const row = finished[i];
    const next = row?.delivery_id ? claimResult(row, e.endpointId) : null;
    // A slot passed on frees nothing, so only the attempts that freed theirs need the look.
    const look = next ? NOTHING_TO_HAND_ON : takeLook(looks, e.endpointId);
    return { applied: row?.applied ?? false, nextAttemptAt: row?.next_attempt_at ?? null, next, look };
  });
}

/**
 * Records the attempt and moves its delivery on, batched with the worker's other attempts ending
 * now; then hands a freed slot on if parked deliveries wait for it.
 */
export async function finishAttempt(input: {
  attempt: ClaimedAttempt;
  jobId: string;
  send: SendOutput;
  outcome: Outcome;
  slot: SlotFate;
  settings: DeliverySettings;
}): Promise<Settlement> {
  const { attempt, jobId, send, outcome, settings } = input;
  const sql = getSql();
  const end = settle(attempt, outcome);
  const batcher = sharedBatcher(sql, `finish/${settings.endpointConcurrency}/${settings.orgConcurrency}/${settings.leaseMarginMs}`, () =>
    new MicroBatcher((ends: AttemptEnd[]) => finishAttempts(sql, ends, settings), { maxBatch: 100, maxConcurrent: 1 }));
  const finished = await batcher.submit({
    organizationId: attempt.organizationId, deliveryId: attempt.deliveryId, endpointId: attempt.endpointId, jobId,
    attemptNumber: attempt.attemptNumber, trigger: attempt.trigger, startedAt: attempt.startedAt, durationMs: send.durationMs,
    statusCode: send.result.kind === "response" ? send.result.statusCode : null, responseBody: send.responseBody,
    error: outcome.kind === "delivered" ? null : end.reason, status: end.status, reason: end.reason,
    retryInMs: end.retryInMs, uncount: end.uncount, slot: input.slot,
  });
  // A chain that found nothing parked in the statement takes what the look after the commit found.
  const takeFor = input.slot === "pass-on" && !finished.next ? jobId : undefined;
  const handed = await handOnLooked(sql, { endpointId: attempt.endpointId, look: finished.look, takeFor, settings });
  const next = finished.next ?? handed.next;
  return { next, status: end.status, nextAttemptAt: finished.nextAttemptAt, reason: end.reason, applied: finished.applied, woken: handed.woken };
}
