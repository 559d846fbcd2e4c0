// One run of the `deliver` job: claim the delivery, POST it to the destination, record the outcome.
// At-least-once: a worker can die after the destination answered and before the outcome is
// recorded; the job then runs again and the destination sees the same x-inbox-delivery-id twice.
import type { DeliverTrigger } from "@/jobs/enqueue";
import { decryptSecret } from "@/lib/crypto/secret-box";
import { claimDelivery, type ClaimRefusal } from "./claim-delivery";
import { classifyOutcome, type Outcome } from "./classify-outcome";
import { finishAttempt, type Settlement } from "./finish-attempt";
import { logDelivery } from "./log-delivery";
import { buildOutboundHeaders } from "./outbound-headers";
import { sendToDestination, type SendOutput } from "./send-to-destination";
import { deliverySettings, type DeliverySettings } from "./settings";

export type AttemptResult = { attempted: false; reason: ClaimRefusal } | { attempted: true; outcome: Outcome; settlement: Settlement };

export async function attemptDelivery(input: {
  deliveryId: string;
  endpointId?: string;
  trigger: DeliverTrigger;
  /** The graphile-worker job id: the claim is held in its name, so its own re-run may take over. */
  jobId: string;
  /** Aborts the request in flight (worker shutdown). */
  signal?: AbortSignal;
  settings?: DeliverySettings;
}): Promise<AttemptResult> {
  const settings = input.settings ?? deliverySettings();
  const claim = await claimDelivery({ ...input, settings });
  if (claim.verdict !== "claimed") {
    if (claim.verdict === "paused" || claim.verdict === "saturated") {
      logDelivery(input.deliveryId, claim.verdict === "paused" ? "held: the endpoint is paused" : "parked: the endpoint's attempts in flight are at its cap");
    }
    return { attempted: false, reason: claim.verdict };
  }
  const attempt = claim.attempt;
  if (attempt.tookOver) logDelivery(attempt.deliveryId, `the attempt before #${attempt.attemptNumber} was interrupted (its worker died); trying again`, "problem");

  let send: SendOutput;
  try {
    const outboundSecret = attempt.outboundSecretEncrypted ? decryptSecret(attempt.outboundSecretEncrypted) : null;
    const headers = buildOutboundHeaders({ stored: attempt.headers, deliveryId: attempt.deliveryId, attemptNumber: attempt.attemptNumber, body: attempt.body, outboundSecret });
    send = await sendToDestination({ url: attempt.destinationUrl, headers, body: attempt.body, timeoutMs: attempt.timeoutMs, signal: input.signal });
  } catch (error) {
    // The endpoint's outbound secret cannot be read or used: nothing was sent, and retrying will not help.
    send = { result: { kind: "bad_destination", message: `cannot sign the request: ${(error as Error).message}` }, responseBody: null, durationMs: 0 };
  }
  const outcome = classifyOutcome(send.result);
  const settlement = await finishAttempt({ attempt, jobId: input.jobId, send, outcome, settings });

  const answer = send.result.kind === "response" ? `HTTP ${send.result.statusCode}` : send.result.kind;
  const then =
    settlement.status === "delivered" ? "delivered"
    : settlement.status === "dead" ? `dead: ${settlement.reason}`
    : `retry at ${settlement.nextAttemptAt?.toISOString()}: ${settlement.reason}`;
  const note = settlement.applied ? "" : " (the delivery was buried meanwhile; only the attempt was recorded)";
  const level = settlement.status === "delivered" ? "info" : "problem";
  logDelivery(attempt.deliveryId, `attempt #${attempt.attemptNumber} (${attempt.trigger}) → ${answer} in ${send.durationMs} ms; ${then}${note}`, level);
  return { attempted: true, outcome, settlement };
}
