// The second half of an attempt: record its result and move the delivery on (delivered, retry at
// the backoff, or dead), in one transaction with the retry's job; then, if deliveries are parked
// behind this endpoint's cap, hand the freed slot on (hand-on-slots.ts). A delivered or dead end,
// the usual case, goes with others ending at the same time (finish-batch.ts); this file's own
// statement is for the ends that schedule a retry.
import type postgres from "postgres";
import { getSql } from "@/db";
import { deliverJobSpec } from "@/lib/queue/enqueue";
import { claimResult, claimStatement, type ClaimedAttempt, type ClaimResult, type ClaimRow } from "./claim-delivery";
import type { Outcome } from "./classify-outcome";
import { finishFinal } from "./finish-batch";
import { PASSED_ON, rawRunner, SHARD_MASK, wakeNeeded, type ParkedLook } from "./endpoint-slots";
import { handOnSlots } from "./hand-on-slots";
import { pipelinedTransaction } from "./pipelined-transaction";
import { retryDelayMs } from "./retry-schedule";
import type { SendOutput } from "./send-to-destination";
import type { DeliverySettings } from "./settings";

export interface Settlement {
  /** With `chainNext`: the endpoint's oldest parked delivery, claimed by this job in the same transaction. */
  next: ClaimResult | null;
  status: "delivered" | "pending" | "dead";
  nextAttemptAt: Date | null;
  reason: string | null;
  /** False when the delivery was no longer this attempt's (buried meanwhile): only the attempt was recorded. */
  applied: boolean;
  woken: number;
  /** Deliveries were parked at the endpoint once this settled: the next attempt's finish should chain. */
  parkedSeen: boolean;
}

/** What the delivery becomes after this attempt. Pure. */
export function settle(attempt: ClaimedAttempt, outcome: Outcome, now: Date, random: () => number = Math.random) {
  switch (outcome.kind) {
    case "delivered":
      return { status: "delivered" as const, nextAttemptAt: null, reason: null, uncount: 0 };
    case "dead":
      return { status: "dead" as const, nextAttemptAt: null, reason: outcome.reason, uncount: 0 };
    case "interrupted":
      // Our shutdown, not the destination's failure: again at once, and it does not count.
      return { status: "pending" as const, nextAttemptAt: now, reason: outcome.reason, uncount: 1 };
    case "retry": {
      if (attempt.seriesNumber >= attempt.maxAttempts) {
        const reason = `gave up after ${attempt.seriesNumber} attempt${attempt.seriesNumber === 1 ? "" : "s"} (maxAttempts ${attempt.maxAttempts}); last: ${outcome.reason}`;
        return { status: "dead" as const, nextAttemptAt: null, reason, uncount: 0 };
      }
      const delay = retryDelayMs({ retryBaseSeconds: attempt.retryBaseSeconds, retryNumber: attempt.seriesNumber, retryAfterMs: outcome.retryAfterMs, random });
      return { status: "pending" as const, nextAttemptAt: new Date(now.getTime() + delay), reason: outcome.reason, uncount: 0 };
    }
  }
}

export async function finishAttempt(input: {
  attempt: ClaimedAttempt;
  jobId: string;
  send: SendOutput;
  outcome: Outcome;
  settings: DeliverySettings;
  /**
   * Hand this attempt's slot straight to the endpoint's oldest parked delivery, claimed for this
   * same job (no job to add, fetch and run); the remaining free slots are woken as usual.
   */
  chainNext?: boolean;
  /**
   * Whether deliveries were parked at the endpoint when this attempt began (claimDelivery's
   * `parkedSeen`). When none were, the chain's claim is left out of the transaction: usually
   * nothing is parked, and the claim would cost a statement as big as the finish for nothing. A
   * delivery parked since is still found, after the commit (wakeNeeded), and handed on.
   */
  parkedSeen?: boolean;
  sql?: postgres.Sql;
}): Promise<Settlement> {
  const { attempt, jobId, send, outcome, settings } = input;
  const sql = input.sql ?? getSql();
  const next = settle(attempt, outcome, new Date());
  const statusCode = send.result.kind === "response" ? send.result.statusCode : null;
  const attemptError = outcome.kind === "delivered" ? null : (next.reason ?? null);
  const chain = input.chainNext === true && input.parkedSeen !== false;
  if (next.status !== "pending") {
    // The common end: batched with the worker's other such ends (finish-batch.ts).
    const { applied, look, next: passedOn } = await finishFinal(sql, {
      organizationId: attempt.organizationId, deliveryId: attempt.deliveryId, endpointId: attempt.endpointId, jobId,
      attemptNumber: attempt.attemptNumber, trigger: attempt.trigger, startedAt: attempt.startedAt, durationMs: send.durationMs,
      statusCode, responseBody: send.responseBody, error: attemptError, status: next.status, reason: next.reason, passOn: chain,
    }, settings);
    return { ...(await afterFinish(sql, input, look, passedOn)), status: next.status, nextAttemptAt: null, reason: next.reason, applied };
  }
  // A retry. Known before the statement runs: its job, added in SQL only if the move applied.
  const retry = JSON.stringify([deliverJobSpec({ deliveryId: attempt.deliveryId, endpointId: attempt.endpointId, trigger: "auto", runAt: next.nextAttemptAt })]);
  // One round trip (pipelined-transaction.ts), no lock: a finish only frees a slot. After the
  // commit, wakeNeeded asks whether parked deliveries wait for it (see endpoint-slots.ts).
  const { results, after } = await pipelinedTransaction<[unknown, { applied: boolean }[], ClaimRow[]?], [ParkedLook]>(
    sql,
    (tx) => [
      tx`set local synchronous_commit = off`.execute(), // see DURABILITY in endpoint-slots.ts
      tx<{ applied: boolean }[]>`
        with recorded as (
          insert into attempts (organization_id, delivery_id, number, trigger, started_at, duration_ms, status_code, response_body, error)
          values (${attempt.organizationId}, ${attempt.deliveryId}, ${attempt.attemptNumber}, ${attempt.trigger}, ${attempt.startedAt},
            ${send.durationMs}, ${statusCode}, ${send.responseBody}, ${attemptError})
          -- Once per (delivery, number): a re-run of this finish records nothing twice; a real outcome
          -- replaces an "interrupted" placeholder the rescue sweep or a takeover wrote meanwhile.
          on conflict (delivery_id, number) do update set
            trigger = excluded.trigger, started_at = excluded.started_at, duration_ms = excluded.duration_ms,
            status_code = excluded.status_code, response_body = excluded.response_body, error = excluded.error
            where attempts.error like 'interrupted:%'
        ),
        cur as (
          select id, status, claimed_by_job from deliveries where id = ${attempt.deliveryId} for update
        ),
        moved as (
          update deliveries d set
            status = ${next.status},
            last_status_code = ${statusCode},
            last_error = ${next.reason},
            next_attempt_at = ${next.nextAttemptAt},
            auto_attempt_count = d.auto_attempt_count - ${next.uncount},
            claimed_by_job = null, lease_expires_at = null, updated_at = now()
          from cur
          -- A retry: a bury during the attempt stands.
          where d.id = cur.id and cur.claimed_by_job = ${jobId} and cur.status = 'delivering'
          returning d.id
        ),
        -- The attempt's slot is free again (endpoint-slots.ts), unless another job took the claim
        -- over, or this job passes the slot on to a parked delivery (below).
        released as (
          update endpoint_slots s set in_flight = greatest(0, s.in_flight - 1)
          from cur where s.endpoint_id = ${attempt.endpointId} and s.shard = (hashtext(${jobId}) & ${SHARD_MASK})
            and cur.claimed_by_job = ${jobId} and not ${chain}::boolean
        )
        select exists (select 1 from moved) as applied,
          (select count(*) from (
            select graphile_worker.add_jobs(array(
              select json_populate_record(null::graphile_worker.job_spec, spec) from json_array_elements(${retry}::text::json) spec))
            from moved
          ) enqueued)::int as retried`.execute(),
      // Chaining: the slot goes straight to the endpoint's oldest parked delivery, claimed for this
      // job; the count does not change, so no slot lock. If nothing is parked, the claim statement
      // frees the slot. (Should another job have taken this claim over meanwhile — only after a
      // stall longer than the lease — the endpoint may run one attempt over its cap until
      // rescue-deliveries recounts, within a minute.)
      ...(chain
        ? [claimStatement(tx, { target: { nextParked: true }, handover: true, endpointId: attempt.endpointId, jobId, trigger: "auto", settings }).execute()]
        : []),
    ] as unknown as [Promise<unknown>, Promise<{ applied: boolean }[]>, Promise<ClaimRow[]>?],
    // A slot passed on frees nothing, so only a finish that frees its slot looks (after the commit).
    chain ? undefined : (tx) => [wakeNeeded(rawRunner(tx), { endpointId: attempt.endpointId, caps: settings })],
  );
  const [, [row], chained] = results;
  const passedOn = chained ? claimResult(chained, attempt.endpointId) : null;
  const look: ParkedLook = !chain
    ? after[0]
    : passedOn?.verdict === "claimed"
      ? PASSED_ON
      : await wakeNeeded(rawRunner(sql), { endpointId: attempt.endpointId, caps: settings });
  return { ...(await afterFinish(sql, input, look, passedOn)), status: next.status, nextAttemptAt: next.nextAttemptAt, reason: next.reason, applied: row?.applied ?? false };
}

/**
 * After the finish's commit: a slot freed (not passed on) while deliveries wait is handed on under
 * the slot lock, at this endpoint and at the organization's endpoints waiting for an organization slot.
 */
async function afterFinish(
  sql: postgres.Sql,
  input: { attempt: ClaimedAttempt; jobId: string; settings: DeliverySettings; chainNext?: boolean },
  look: ParkedLook,
  passedOn: ClaimResult | null,
): Promise<Pick<Settlement, "woken" | "next" | "parkedSeen">> {
  const handed = look.needed
    ? await handOnSlots(sql, { endpointId: input.attempt.endpointId, jobId: input.jobId, chainNext: (input.chainNext ?? false) && passedOn?.verdict !== "claimed", settings: input.settings })
    : { next: null, woken: [] };
  let woken = handed.woken.length;
  for (const endpointId of look.orgWaiting) {
    woken += (await handOnSlots(sql, { endpointId, jobId: input.jobId, chainNext: false, settings: input.settings })).woken.length;
  }
  const nextClaim = passedOn?.verdict === "claimed" ? passedOn : handed.next;
  return { woken, next: nextClaim, parkedSeen: look.parked || nextClaim?.verdict === "claimed" };
}
