// The second half of an attempt: record its result and move the delivery on (delivered, retry at
// the backoff, or dead), in one transaction under the endpoint's slot lock, together with the
// retry's job and the wake-up of deliveries parked behind this attempt's slot.
import type postgres from "postgres";
import { getSql } from "@/db";
import { deliverJobSpec, enqueueRaw, type JobSpec } from "@/jobs/enqueue";
import type { ClaimedAttempt } from "./claim-delivery";
import type { Outcome } from "./classify-outcome";
import { lockEndpointSlots, rawRunner, wakeParkedDeliveries } from "./endpoint-slots";
import { retryDelayMs } from "./retry-schedule";
import type { SendOutput } from "./send-to-destination";
import type { DeliverySettings } from "./settings";

export interface Settlement {
  status: "delivered" | "pending" | "dead";
  nextAttemptAt: Date | null;
  reason: string | null;
  /** False when the delivery was no longer this attempt's (buried meanwhile): only the attempt was recorded. */
  applied: boolean;
  woken: number;
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
  sql?: postgres.Sql;
}): Promise<Settlement> {
  const { attempt, jobId, send, outcome, settings } = input;
  const sql = input.sql ?? getSql();
  const next = settle(attempt, outcome, new Date());
  const statusCode = send.result.kind === "response" ? send.result.statusCode : null;
  const attemptError = outcome.kind === "delivered" ? null : (next.reason ?? null);
  return sql.begin(async (tx) => {
    const run = rawRunner(tx);
    await lockEndpointSlots(run, attempt.endpointId);
    const [row] = await tx<{ applied: boolean }[]>`
      with recorded as (
        update attempts set duration_ms = ${send.durationMs}, status_code = ${statusCode},
          response_body = ${send.responseBody}, error = ${attemptError}
        where id = ${attempt.attemptId}
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
          delivered_at = case when ${next.status} = 'delivered' then now() else d.delivered_at end,
          auto_attempt_count = d.auto_attempt_count - ${next.uncount},
          claimed_by_job = null, lease_expires_at = null, updated_at = now()
        from cur
        where d.id = cur.id and cur.claimed_by_job = ${jobId}
          -- A bury during the attempt stands, unless the destination took it after all.
          and (cur.status = 'delivering' or (cur.status = 'dead' and ${next.status} = 'delivered'))
        returning d.id
      )
      select exists (select 1 from moved) as applied`;
    const applied = row?.applied ?? false;
    const specs: JobSpec[] = [];
    if (applied && next.status === "pending") {
      specs.push(deliverJobSpec({ deliveryId: attempt.deliveryId, endpointId: attempt.endpointId, trigger: "auto", runAt: next.nextAttemptAt }));
    }
    const woken = await wakeParkedDeliveries(run, {
      endpointId: attempt.endpointId,
      concurrency: settings.endpointConcurrency,
      except: attempt.deliveryId,
    });
    specs.push(...woken);
    // One add_jobs for the retry and the wake-ups: each call NOTIFYs (STACK-NOTES 5).
    await enqueueRaw(tx, specs);
    return { status: next.status, nextAttemptAt: next.nextAttemptAt, reason: next.reason, applied, woken: woken.length };
  });
}
