// The second half of an attempt: record its result and move the delivery on — delivered, retry
// at the backoff (with its job), or dead — and do with the attempt's slot what its SlotFate says.
// Attempts that end at the same time go together (micro-batcher.ts; a lone one is a batch of one),
// in one statement (FINISH, sql/finish.ts); after the commit, one look per destination for parked deliveries
// waiting for a freed slot, handed on if there are (hand-on-slots.ts; destination-slots.ts: no lost wake-up).
import type postgres from "postgres";
import { getSql } from "@/db";
import type { DeadReason } from "@/db/schema";
import { batchIdBounds, idBoundsParams, splitOlder, weeksAfter } from "@/lib/storage/batch-id-range";
import { floorOfDestinations, floorsOfDestinations } from "@/lib/storage/delivery-id-floor";
import { claimResult, type ClaimedAttempt, type ClaimResult, type ClaimRow } from "./claimed-attempt";
import type { Outcome } from "./classify-outcome";
import { NOTHING_TO_HAND_ON, rawRunner, takeLook, wakeNeededMany, type ParkedLook } from "./destination-slots";
import { handOnLooked } from "./hand-on-slots";
import { MicroBatcher, sharedBatcher } from "./micro-batcher";
import { pipelinedTransaction } from "./pipelined-transaction";
import { retryDelayMs } from "./retry-schedule";
import type { SendOutput } from "./send-to-destination";
import type { DeliverySettings } from "./settings";
import { FINISH } from "./sql/finish";

/**
 * What becomes of the destination slot an attempt held, once it ends:
 * - "release": it is freed; parked deliveries waiting for it are woken as jobs after the commit.
 * - "pass-on": in the same statement, the same job claims the destination's oldest parked delivery
 *   with it (a chain: no job to add, fetch and run, and the count does not change); freed when
 *   nothing is parked or the destination is paused.
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
export function settle(attempt: Pick<ClaimedAttempt, "seriesNumber" | "maxAttempts" | "retryBaseSeconds">, outcome: Outcome, random: () => number = Math.random) {
  switch (outcome.kind) {
    case "delivered":
      return { status: "delivered" as const, retryInMs: null, reason: null, uncount: 0, deadReason: null };
    case "dead":
      // Final at the first answer (a 4xx, 410, or a destination that cannot be sent to): rejected, not retried.
      return { status: "dead" as const, retryInMs: null, reason: outcome.reason, uncount: 0, deadReason: "rejected" as const };
    case "interrupted":
      // Our shutdown, not the destination's failure: again at once, and it does not count.
      return { status: "pending" as const, retryInMs: 0, reason: outcome.reason, uncount: 1, deadReason: null };
    case "retry": {
      if (attempt.seriesNumber >= attempt.maxAttempts) {
        const reason = `gave up after ${attempt.seriesNumber} attempt${attempt.seriesNumber === 1 ? "" : "s"} (maxAttempts ${attempt.maxAttempts}); last: ${outcome.reason}`;
        return { status: "dead" as const, retryInMs: null, reason, uncount: 0, deadReason: "exhausted" as const };
      }
      const delay = retryDelayMs({ retryBaseSeconds: attempt.retryBaseSeconds, retryNumber: attempt.seriesNumber, retryAfterMs: outcome.retryAfterMs, random });
      return { status: "pending" as const, retryInMs: delay, reason: outcome.reason, uncount: 0, deadReason: null };
    }
  }
}

/** One attempt's end, as the finish statement takes it. */
export interface AttemptEnd {
  organizationId: string;
  deliveryId: string;
  destinationId: string;
  jobId: string;
  attemptNumber: number;
  trigger: string;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  responseBody: string | null;
  /** The headers the worker set on the request it sent (outbound-headers.ts: x-inbox-*, webhook-*); absent when none was sent. */
  requestHeaders?: Record<string, string> | null;
  /** The answer's headers (send-to-destination.ts), absent when none came. */
  responseHeaders?: Record<string, string> | null;
  error: string | null;
  status: Settlement["status"];
  reason: string | null;
  /** Why it is dead, when `status` is (settle's); null or absent otherwise. */
  deadReason?: DeadReason | null;
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
  const passingOn = [...new Set(ends.filter((e) => e.slot === "pass-on").map((e) => e.destinationId))];
  const floors = passingOn.length > 0 ? await floorsOfDestinations(sql, passingOn) : new Map<string, string>();
  const { recent, older } = splitOlder(ends, (e) => {
    const floor = e.slot === "pass-on" ? floors.get(e.destinationId) : undefined;
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
    ord, organization_id: e.organizationId, delivery_id: e.deliveryId, destination_id: e.destinationId, job_id: e.jobId,
    number: e.attemptNumber, trigger: e.trigger, started_at: e.startedAt.toISOString(), duration_ms: e.durationMs,
    status_code: e.statusCode, response_body: e.responseBody, request_headers: e.requestHeaders ?? null, response_headers: e.responseHeaders ?? null, error: e.error, status: e.status, reason: e.reason,
    dead_reason: e.deadReason ?? null, retry_in_ms: e.retryInMs, uncount: e.uncount, slot: e.slot,
  }));
  const destinationIds = [...new Set(ends.map((e) => e.destinationId))];
  const passingOn = [...new Set(ends.filter((e) => e.slot === "pass-on").map((e) => e.destinationId))];
  // The chains look from their organizations' floor on ($3, '' when none passes its slot on).
  const chainFloor = passingOn.length > 0 ? await floorOfDestinations(sql, passingOn) : "";
  const bounds = await batchIdBounds(ends.map((e) => e.deliveryId), () => floorOfDestinations(sql, destinationIds));
  const statement = FINISH(bounds, passingOn.length > 0 ? { kind: "from", floor: chainFloor } : null);
  const { results, after } = await pipelinedTransaction<[unknown, FinishRow[]], [Map<string, ParkedLook>]>(
    sql,
    (tx) => [
      tx`set local synchronous_commit = off`.execute(), // see DURABILITY in destination-slots.ts
      tx.unsafe<FinishRow[]>(statement, [JSON.stringify(rows), settings.leaseMarginMs / 1000, chainFloor, ...idBoundsParams(bounds)], { prepare: true }).execute(),
    ],
    (tx) => [wakeNeededMany(rawRunner(tx), { destinationIds, caps: settings })],
  );
  const [, finished] = results;
  const [looks] = after;
  return ends.map((e, i) => {
    const row = finished[i];
    const next = row?.delivery_id ? claimResult(row, e.destinationId) : null;
    // A slot passed on frees nothing, so only the attempts that freed theirs need the look.
    const look = next ? NOTHING_TO_HAND_ON : takeLook(looks, e.destinationId);
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
  /** The headers the worker set on what it sent (x-inbox-*, webhook-*); null when nothing was sent. */
  requestHeaders?: Record<string, string> | null;
  outcome: Outcome;
  slot: SlotFate;
  settings: DeliverySettings;
}): Promise<Settlement> {
  const { attempt, jobId, send, outcome, settings } = input;
  const sql = getSql();
  const end = settle(attempt, outcome);
  const batcher = sharedBatcher(sql, `finish/${settings.destinationConcurrency}/${settings.orgConcurrency}/${settings.leaseMarginMs}`, () =>
    new MicroBatcher((ends: AttemptEnd[]) => finishAttempts(sql, ends, settings), { maxBatch: 100, maxConcurrent: 1 }));
  const finished = await batcher.submit({
    organizationId: attempt.organizationId, deliveryId: attempt.deliveryId, destinationId: attempt.destinationId, jobId,
    attemptNumber: attempt.attemptNumber, trigger: attempt.trigger, startedAt: attempt.startedAt, durationMs: send.durationMs,
    statusCode: send.result.kind === "response" ? send.result.statusCode : null, responseBody: send.responseBody,
    requestHeaders: input.requestHeaders ?? null, responseHeaders: send.responseHeaders ?? null,
    error: outcome.kind === "delivered" ? null : end.reason, status: end.status, reason: end.reason, deadReason: end.deadReason,
    retryInMs: end.retryInMs, uncount: end.uncount, slot: input.slot,
  });
  // A chain that found nothing parked in the statement takes what the look after the commit found.
  const takeFor = input.slot === "pass-on" && !finished.next ? jobId : undefined;
  const handed = await handOnLooked(sql, { destinationId: attempt.destinationId, look: finished.look, takeFor, settings });
  const next = finished.next ?? handed.next;
  return { next, status: end.status, nextAttemptAt: finished.nextAttemptAt, reason: end.reason, applied: finished.applied, woken: handed.woken };
}
