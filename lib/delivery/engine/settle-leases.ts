// The end of a pull's lease (lease-deliveries.ts), which is the end of its attempt: an ack delivers, a nack is a
// failed attempt, and a lease that runs out unacknowledged is one too (`lease_expired`), retried under the
// destination's settings as a push attempt is (finish-attempt.ts settle: backoff, Retry-After as a floor, dead after
// maxAttempts). One form: FINISH (sql/finish.ts) records the attempt, moves the delivery on and frees the slot, in
// the lease id's name as a job's; a retry's job, once due, parks the delivery for pulls again (sql/claim.ts `pull`).
// A lease is settled once: a lease that ran out, or was settled already, is no longer the delivery's claim.
import type postgres from "postgres";
import { notifyPullReady } from "@/lib/destinations/pull-ready";
import { logDelivery } from "@/lib/logging/log-delivery";
import type { Outcome } from "./classify-outcome";
import { finishAttempts, settle, type AttemptEnd } from "./finish-attempt";
import type { DeliverySettings } from "./settings";

/** What its holder said of a lease: done, or failed (retry no sooner than `retryAfterMs`, if given). */
export type LeaseAnswer = { kind: "ack" } | { kind: "nack"; retryAfterMs: number | null };

/** What ran out unacknowledged: the attempt's error and reason. */
export const LEASE_EXPIRED = "lease_expired";
const NACKED = "nacked";
/** Expired leases one run of the expiry settles at most; the next pull's job, or the rescue sweep, does the rest. */
const EXPIRED_PER_RUN = 1_000;

interface LeasedRow {
  id: string;
  organization_id: string;
  endpoint_id: string;
  lease_id: string;
  attempt_count: number;
  auto_attempt_count: number;
  trigger: string;
  started_at: Date;
  duration_ms: number;
  max_attempts: number;
  retry_base_seconds: number;
}

/** Settles live leases of the destination held by its organization; returns the lease ids settled (the others are unknown, expired or settled already). */
export async function answerLeases(
  sql: postgres.Sql,
  input: { organizationId: string; destinationId: string; leaseIds: string[]; answer: LeaseAnswer; settings: DeliverySettings },
): Promise<Set<string>> {
  const { organizationId, destinationId, answer } = input;
  const rows = await sql<LeasedRow[]>`
    select ${sql.unsafe(LEASED_COLUMNS)} from deliveries d join destinations e on e.id = d.destination_id
    where d.destination_id = ${destinationId} and d.organization_id = ${organizationId} and d.status = 'delivering'
      and d.claimed_by_job = any(${[...new Set(input.leaseIds)]}::text[]) and d.lease_expires_at > now()`;
  const outcome: Outcome = answer.kind === "ack" ? { kind: "delivered" } : { kind: "retry", reason: NACKED, retryAfterMs: answer.retryAfterMs };
  return settleLeased(sql, destinationId, rows, outcome, input.settings);
}

/** Settles the destination's leases that have run out (jobs/expire-leases.ts); returns how many. */
export async function expireLeases(sql: postgres.Sql, input: { destinationId: string; settings: DeliverySettings }): Promise<number> {
  const rows = await sql<LeasedRow[]>`
    select ${sql.unsafe(LEASED_COLUMNS)} from deliveries d join destinations e on e.id = d.destination_id
    where d.destination_id = ${input.destinationId} and d.status = 'delivering' and d.lease_expires_at <= now() and e.type = 'pull'
    order by d.lease_expires_at limit ${EXPIRED_PER_RUN}`;
  return (await settleLeased(sql, input.destinationId, rows, { kind: "retry", reason: LEASE_EXPIRED, retryAfterMs: null }, input.settings)).size;
}

// Written once for both reads. A lease's attempt began when it was claimed (the claim's now(), its updated_at); the
// first attempt after a replay is the replay's, as a chain's claim says (sql/finish.ts).
const LEASED_COLUMNS = `d.id, d.organization_id, d.endpoint_id, d.claimed_by_job as lease_id, d.attempt_count, d.auto_attempt_count,
  case when d.auto_attempt_count = 1 and d.attempt_count > 1 then 'replay' else 'auto' end as trigger,
  d.updated_at as started_at, greatest(0, round(extract(epoch from clock_timestamp() - d.updated_at) * 1000))::int as duration_ms,
  e.max_attempts, e.retry_base_seconds`;

async function settleLeased(sql: postgres.Sql, destinationId: string, rows: LeasedRow[], outcome: Outcome, settings: DeliverySettings): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const ends: AttemptEnd[] = rows.map((row) => {
    const end = settle({ seriesNumber: row.auto_attempt_count, maxAttempts: row.max_attempts, retryBaseSeconds: row.retry_base_seconds }, outcome);
    return {
      organizationId: row.organization_id, deliveryId: row.id, destinationId, jobId: row.lease_id, attemptNumber: row.attempt_count,
      trigger: row.trigger, startedAt: row.started_at, durationMs: row.duration_ms, statusCode: null, responseBody: null,
      error: outcome.kind === "delivered" ? null : end.reason, status: end.status, reason: end.reason, retryInMs: end.retryInMs,
      uncount: end.uncount, slot: "release",
    };
  });
  const finished = await finishAttempts(sql, ends, settings);
  const settled = new Set<string>();
  finished.forEach((result, i) => {
    const end = ends[i]!;
    if (!result.applied) return;
    settled.add(end.jobId);
    const then = end.status === "pending" ? `retry at ${result.nextAttemptAt?.toISOString()}` : end.status;
    logDelivery({ deliveryId: end.deliveryId, endpointId: rows[i]!.endpoint_id, destinationId, organizationId: end.organizationId },
      `lease of attempt #${end.attemptNumber} ${outcome.kind === "delivered" ? "acknowledged" : (outcome as { reason: string }).reason}; ${then}`,
      end.status === "delivered" ? "info" : "problem");
  });
  // A freed lease slot is no organization's (its cap leaves leases out) and no job waits for it: nothing to hand on.
  // This destination's waiting pulls look again (a slot is free, an earlier delivery of an ordering value may have settled).
  if (settled.size > 0) await notifyPullReady(sql, [destinationId]);
  return settled;
}
