// POST /endpoints/{id}/destinations/{destinationId}/pull (API.md "Pull destinations"): leases up to `max` of a pull
// destination's ready deliveries, oldest first (lib/delivery/engine/lease-deliveries.ts). With `waitSeconds`, while
// nothing is ready it waits (pull-waiters.ts: no connection held) and looks again when told a delivery may be
// ready, or, when the destination's rate limit held some back, when its next token may have come.
import { getSql } from "@/db";
import { config } from "@/lib/config/config";
import type { Ctx } from "@/lib/context";
import { deliverySettings, leaseDeliveries, type Lease, type Leased } from "@/lib/delivery/engine";
import { presentBody } from "@/lib/delivery/presentation/present-delivery";
import { requestIdOf } from "@/lib/ids";
import { parseInput } from "@/lib/validation";
import { PullInput, type LeasedDelivery, type PullOutput } from "./pull-input";
import { pullDestinationOrThrow } from "./pull-destination";
import { listenForReadyDeliveries, takeWaitTurn, watchDestination } from "./pull-waiters";

/**
 * Leases a pull destination's consumers may hold at once: its cap in place of DELIVERY_ENDPOINT_CONCURRENCY, as many
 * as one pull may ask for. A lease holds no worker, so ORG_DELIVERY_CONCURRENCY does not count them.
 */
export const LEASES_PER_DESTINATION = 100;

export async function pullDeliveries({ ctx, input, signal }: {
  ctx: Ctx;
  input: { endpointId: string; destinationId: string; body: unknown };
  /** The client went away: stop waiting. */
  signal?: AbortSignal;
}): Promise<PullOutput> {
  const { max, leaseSeconds, waitSeconds } = parseInput(PullInput, input.body);
  const destination = await pullDestinationOrThrow(ctx, input);
  const settings = deliverySettings();
  const take = () => leaseDeliveries(getSql(), { destinationId: destination.id, max, leaseSeconds, leaseCap: LEASES_PER_DESTINATION, settings });
  let leased = await take();
  if (leased.leases.length > 0 || waitSeconds === 0) return present(leased);
  // Past its organization's share of waiting pulls, a pull answers at once with what is ready (nothing).
  const giveBack = takeWaitTurn(ctx.organizationId, config().PULL_WAITS_PER_ORGANIZATION);
  if (!giveBack) return present(leased);
  const deadline = performance.now() + waitSeconds * 1000;
  try {
    await listenForReadyDeliveries();
    const watch = watchDestination(destination.id);
    try {
      for (;;) {
        watch.reset();
        leased = await take();
        const left = deadline - performance.now();
        if (leased.leases.length > 0 || left <= 0 || signal?.aborted) break;
        // No notice says a token has come: a rate-limited destination is looked at again when the next may have.
        const rate = destination.ratePerSecond;
        await watch.wait(leased.rateLimited && rate ? Math.min(left, Math.ceil(1000 / rate)) : left, signal);
      }
    } finally {
      watch.stop();
    }
  } finally {
    giveBack();
  }
  return present(leased);
}

function present(leased: Leased): PullOutput {
  return { data: leased.leases.map(presentLease) };
}

function presentLease(lease: Lease): LeasedDelivery {
  const { attempt } = lease;
  return {
    leaseId: lease.leaseId,
    deliveryId: requestIdOf(attempt.deliveryId),
    attempt: attempt.attemptNumber,
    receivedAt: lease.receivedAt.toISOString(),
    eventType: lease.eventType,
    externalId: lease.externalId,
    headers: attempt.headers,
    ...presentBody(attempt.body),
  };
}
