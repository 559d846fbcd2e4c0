// One run of the `deliver` job: claim the delivery, POST it to the destination, record the outcome.
// When the destination has deliveries parked behind its concurrency cap, the run then carries on with
// them itself (the slot passes straight on, for a bounded while), which is how a backlog drains.
// At-least-once: a worker can die after the destination answered and before the outcome is
// recorded; the job then runs again and the destination sees the same x-inbox-delivery-id twice.
import { getSql } from "@/db";
import { notifyPullReady } from "@/lib/destinations/pull-ready";
import { requestIdOf } from "@/lib/ids";
import type { DeliverTrigger } from "@/lib/queue/enqueue";
import { decryptSecret } from "@/lib/crypto/secret-box";
import { claimDelivery, claimLeftByJob } from "./claim-delivery";
import type { ClaimedAttempt, ClaimRefusal, ClaimResult } from "./claimed-attempt";
import { classifyOutcome, type Outcome } from "./classify-outcome";
import { finishAttempt, type Settlement, type SlotFate } from "./finish-attempt";
import { handOnLooked } from "./hand-on-slots";
import { scheduleRateWake } from "./wake-rate-limited";
import { logDelivery } from "@/lib/logging/log-delivery";
import { buildOutboundHeaders } from "./outbound-headers";
import { sendToDestination, type SendOutput } from "./send-to-destination";
import { deliverySettings, type DeliverySettings } from "./settings";

/**
 * How long one job run may keep passing its slot on to parked deliveries before it lets its worker
 * go back to the queue (where fresh deliveries of other destinations wait): the rest are woken as
 * jobs of their own.
 */
export const CHAIN_LIMIT = { attempts: 200, ms: 2_000 };

export type AttemptResult =
  | { attempted: false; reason: ClaimRefusal }
  | { attempted: true; outcome: Outcome; settlement: Settlement; chained: number };

export async function attemptDelivery(input: {
  deliveryId: string;
  destinationId?: string;
  trigger: DeliverTrigger;
  /** The graphile-worker job id: the claim is held in its name, so its own re-run may take over. */
  jobId: string;
  /** This job ran before and its worker died: pick up the deliveries it had claimed. */
  rerun?: boolean;
  /** Aborts the request in flight (worker shutdown). */
  signal?: AbortSignal;
  settings?: DeliverySettings;
}): Promise<AttemptResult> {
  const settings = input.settings ?? deliverySettings();
  const { jobId, destinationId } = input;
  const own = await claimDelivery({ deliveryId: input.deliveryId, destinationId, jobId, trigger: input.trigger, settings });
  if (own.verdict === "rate_limited" && own.destinationId) {
    logDelivery({ deliveryId: input.deliveryId, destinationId: own.destinationId, jobId }, "parked: the destination's rate limit has no token now");
    await scheduleRateWake(own.destinationId);
  }
  if (own.verdict === "pull" && own.destinationId) {
    // A retry come due, or a replay: it waits parked for a pull now, and the destination's waiting pulls are told.
    logDelivery({ deliveryId: input.deliveryId, destinationId: own.destinationId, jobId }, "parked for a pull: a pull destination is never pushed to");
    await notifyPullReady(getSql(), [own.destinationId]);
  }
  if (own.verdict === "ordered") {
    logDelivery({ deliveryId: input.deliveryId, destinationId: own.destinationId ?? destinationId, jobId }, "parked: an earlier delivery of its ordering value is still open");
  }
  if (own.verdict === "paused" || own.verdict === "saturated") {
    logDelivery({ deliveryId: input.deliveryId, destinationId: own.destinationId ?? destinationId, jobId }, own.verdict === "paused" ? "held: the destination is paused" : "parked: the destination's attempts in flight are at its cap");
  }
  const refusal = own.verdict === "claimed" ? null : own.verdict;
  let claim: ClaimResult = own;
  if (own.destinationId) {
    // A free slot and parked deliveries seen after the claim's commit are brought together; a job
    // with no delivery of its own to attempt takes the oldest parked one (perhaps its own) itself.
    const takeFor = own.verdict === "claimed" ? undefined : jobId;
    const handed = await handOnLooked(getSql(), { destinationId: own.destinationId, look: own.look, takeFor, settings });
    if (handed.next?.verdict === "claimed") claim = handed.next;
  }

  let first: AttemptResult | undefined;
  let chained = 0;
  const started = Date.now();
  for (;;) {
    if (claim.verdict !== "claimed" && input.rerun && destinationId) {
      // A chain this job was running when its worker died: deliveries still claimed in its name.
      claim = await claimLeftByJob({ destinationId, jobId, settings });
    }
    if (claim.verdict !== "claimed") break;
    const chain = chained < CHAIN_LIMIT.attempts && Date.now() - started < CHAIN_LIMIT.ms && !input.signal?.aborted;
    const { outcome, settlement } = await attemptOnce(claim.attempt, { jobId, signal: input.signal, settings, slot: chain ? "pass-on" : "release" });
    first ??= { attempted: true, outcome, settlement, chained: 0 };
    claim = settlement.next ?? { verdict: "missing" };
    if (claim.verdict === "claimed") chained++;
  }
  if (!first) return { attempted: false, reason: refusal ?? "missing" };
  return { ...first, chained } as AttemptResult;
}

async function attemptOnce(
  attempt: ClaimedAttempt,
  options: { jobId: string; signal?: AbortSignal; settings: DeliverySettings; slot: SlotFate },
): Promise<{ outcome: Outcome; settlement: Settlement }> {
  const about = { deliveryId: attempt.deliveryId, endpointId: attempt.endpointId, destinationId: attempt.destinationId, organizationId: attempt.organizationId, jobId: options.jobId };
  if (attempt.tookOver) logDelivery(about, `the attempt before #${attempt.attemptNumber} was interrupted (its worker died); trying again`, "problem");
  let send: SendOutput;
  // What the worker set on the request, for the attempt's record: ours and the signature, never a secret.
  let requestHeaders: Record<string, string> | null = null;
  try {
    const outboundSecret = attempt.outboundSecretEncrypted ? decryptSecret(attempt.outboundSecretEncrypted) : null;
    const headers = buildOutboundHeaders({ stored: attempt.headers, deliveryId: requestIdOf(attempt.deliveryId), destinationId: attempt.destinationId, attemptNumber: attempt.attemptNumber, body: attempt.body, outboundSecret });
    requestHeaders = Object.fromEntries(Object.entries(headers).filter(([name]) => name.startsWith("x-inbox-") || name.startsWith("webhook-")));
    send = await sendToDestination({ url: attempt.destinationUrl, headers, body: attempt.body, timeoutMs: attempt.timeoutMs, signal: options.signal });
  } catch (error) {
    // The destination's outbound secret cannot be read or used: nothing was sent, and retrying will not help.
    send = { result: { kind: "bad_destination", message: `cannot sign the request: ${(error as Error).message}` }, responseBody: null, responseHeaders: null, durationMs: 0 };
  }
  const outcome = classifyOutcome(send.result);
  const settlement = await finishAttempt({ attempt, jobId: options.jobId, send, requestHeaders, outcome, settings: options.settings, slot: options.slot });

  const answer = send.result.kind === "response" ? `HTTP ${send.result.statusCode}` : send.result.kind;
  const then =
    settlement.status === "delivered" ? "delivered"
    : settlement.status === "dead" ? `dead: ${settlement.reason}`
    : settlement.nextAttemptAt ? `retry at ${settlement.nextAttemptAt.toISOString()}: ${settlement.reason}`
    : `not retried: ${settlement.reason}`;
  const note = settlement.applied ? "" : " (the delivery was buried meanwhile; only the attempt was recorded)";
  const level = settlement.status === "delivered" ? "info" : "problem";
  logDelivery(about, `attempt #${attempt.attemptNumber} (${attempt.trigger}) → ${answer} in ${send.durationMs} ms; ${then}${note}`, level);
  return { outcome, settlement };
}
