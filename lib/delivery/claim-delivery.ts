// The first half of an attempt: in one short transaction under the endpoint's slot lock, decide
// whether this job may attempt the delivery now, and if so mark it `delivering` (with a lease in
// the job's name), count the attempt and open its attempts row. Raw SQL: this is the hot path.
import type postgres from "postgres";
import { getSql } from "@/db";
import type { DeliverTrigger } from "@/jobs/enqueue";
import { lockEndpointSlots, rawRunner } from "./endpoint-slots";
import type { DeliverySettings } from "./settings";

/** Why a job does not attempt: gone, already final, another live attempt, a retry not yet due, parked. */
export type ClaimRefusal = "missing" | "settled" | "in_flight" | "not_due" | "paused" | "saturated";

export interface ClaimedAttempt {
  deliveryId: string;
  organizationId: string;
  endpointId: string;
  attemptId: string;
  /** 1-based, over the delivery's whole life (x-inbox-attempt). */
  attemptNumber: number;
  /** Attempts since the last replay, this one included; maxAttempts counts these. */
  seriesNumber: number;
  trigger: DeliverTrigger;
  headers: Record<string, string>;
  body: Buffer;
  destinationUrl: string;
  timeoutMs: number;
  maxAttempts: number;
  retryBaseSeconds: number;
  outboundSecretEncrypted: string | null;
  /** This job's earlier run died mid-attempt (or another's claim lapsed); that attempt was marked interrupted. */
  tookOver: boolean;
}

export type ClaimResult = { verdict: "claimed"; attempt: ClaimedAttempt } | { verdict: ClaimRefusal };

interface ClaimRow {
  verdict: ClaimRefusal | "claim";
  took_over: boolean;
  organization_id: string | null;
  attempt_id: string | null;
  attempt_count: number | null;
  auto_attempt_count: number | null;
  trigger: DeliverTrigger | null;
  headers: Record<string, string> | null;
  body: Buffer | null;
  destination_url: string;
  timeout_ms: number;
  max_attempts: number;
  retry_base_seconds: number;
  outbound_secret_encrypted: string | null;
}

const INTERRUPTED = "interrupted: the worker stopped during this attempt, so its outcome is unknown";

export async function claimDelivery(input: {
  deliveryId: string;
  endpointId?: string;
  jobId: string;
  trigger: DeliverTrigger;
  settings: DeliverySettings;
  sql?: postgres.Sql;
}): Promise<ClaimResult> {
  const sql = input.sql ?? getSql();
  const { deliveryId, jobId, settings } = input;
  let endpointId = input.endpointId;
  if (!endpointId) {
    const [row] = await sql<{ endpoint_id: string }[]>`select endpoint_id from deliveries where id = ${deliveryId}`;
    if (!row) return { verdict: "missing" };
    endpointId = row.endpoint_id;
  }
  const leaseMarginSeconds = settings.leaseMarginMs / 1000;
  const rows = await sql.begin(async (tx) => {
    await lockEndpointSlots(rawRunner(tx), endpointId);
    // One statement, so one snapshot taken after the lock: every claim of this endpoint that
    // committed before is counted. The delivery row is locked first, so a concurrent replay or
    // bury is seen in its committed state. (Data-modifying CTEs always run, read or not.)
    return tx<ClaimRow[]>`
      with cur as (
        select d.id, d.status, d.next_attempt_at, d.claimed_by_job, d.lease_expires_at
        from deliveries d where d.id = ${deliveryId} and d.endpoint_id = ${endpointId}
        for update
      ),
      ep as (
        select e.paused, e.destination_url, e.timeout_ms, e.max_attempts, e.retry_base_seconds, e.outbound_secret_encrypted
        from endpoints e where e.id = ${endpointId}
      ),
      busy as (
        select count(*)::int as n from deliveries b
        where b.endpoint_id = ${endpointId} and b.status = 'delivering' and b.lease_expires_at > now() and b.id <> ${deliveryId}
      ),
      verdict as (
        select
          case
            when cur.status in ('delivered', 'dead') then 'settled'
            when cur.status = 'delivering' and cur.claimed_by_job is distinct from ${jobId}
              and cur.lease_expires_at > now() then 'in_flight'
            when cur.status = 'pending' and cur.next_attempt_at > now() + interval '1 second' then 'not_due'
            when ep.paused then 'paused'
            when busy.n >= ${settings.endpointConcurrency} then 'saturated'
            else 'claim'
          end as verdict,
          cur.status = 'delivering' as took_over
        from cur, ep, busy
      ),
      interrupted as (
        update attempts a set error = ${INTERRUPTED}
        from verdict
        where verdict.took_over and verdict.verdict in ('claim', 'paused', 'saturated')
          and a.delivery_id = ${deliveryId} and a.duration_ms is null and a.status_code is null and a.error is null
        returning a.id
      ),
      claimed as (
        update deliveries d set
          status = 'delivering',
          claimed_by_job = ${jobId},
          lease_expires_at = now() + make_interval(secs => ep.timeout_ms / 1000.0 + ${leaseMarginSeconds}),
          attempt_count = d.attempt_count + 1,
          auto_attempt_count = d.auto_attempt_count + 1,
          parked_at = null,
          next_attempt_at = null,
          updated_at = now()
        from verdict, ep
        where d.id = ${deliveryId} and verdict.verdict = 'claim'
        returning d.id, d.organization_id, d.attempt_count, d.auto_attempt_count, d.headers, d.body
      ),
      opened as (
        insert into attempts (organization_id, delivery_id, number, trigger, started_at)
        select c.organization_id, c.id, c.attempt_count,
          -- The first attempt after a replay is the replay's, whichever job makes it.
          case when c.auto_attempt_count = 1 and (c.attempt_count > 1 or ${input.trigger} = 'replay') then 'replay' else 'auto' end,
          clock_timestamp()
        from claimed c
        returning id, trigger
      ),
      parked as (
        update deliveries d set
          status = 'pending', claimed_by_job = null, lease_expires_at = null,
          parked_at = coalesce(d.parked_at, now()), next_attempt_at = null, updated_at = now()
        from verdict
        where d.id = ${deliveryId} and verdict.verdict in ('paused', 'saturated')
        returning d.id
      )
      select verdict.verdict, verdict.took_over,
        claimed.organization_id, opened.id::text as attempt_id, claimed.attempt_count, claimed.auto_attempt_count,
        opened.trigger, claimed.headers, claimed.body,
        ep.destination_url, ep.timeout_ms, ep.max_attempts, ep.retry_base_seconds, ep.outbound_secret_encrypted
      from verdict cross join ep
      left join claimed on true
      left join opened on true`;
  });
  const row = rows[0];
  if (!row) return { verdict: "missing" };
  if (row.verdict !== "claim") return { verdict: row.verdict };
  return {
    verdict: "claimed",
    attempt: {
      deliveryId,
      organizationId: row.organization_id!,
      endpointId,
      attemptId: row.attempt_id!,
      attemptNumber: row.attempt_count!,
      seriesNumber: row.auto_attempt_count!,
      trigger: row.trigger!,
      headers: row.headers ?? {},
      body: row.body ?? Buffer.alloc(0),
      destinationUrl: row.destination_url,
      timeoutMs: row.timeout_ms,
      maxAttempts: row.max_attempts,
      retryBaseSeconds: row.retry_base_seconds,
      outboundSecretEncrypted: row.outbound_secret_encrypted,
      tookOver: row.took_over,
    },
  };
}
