// What a claim hands back to its job: the row a claim returns and what that row means. The same for the
// claim statement (CLAIM, sql/claim.ts) and a chain's claim in the finish statement (FINISH, sql/finish.ts),
// which write the claimed state alike.
import type { DeliverTrigger } from "@/lib/queue/enqueue";

/**
 * Why a job does not attempt: gone, already final, another live attempt, a retry not yet due, parked (paused, a
 * pull destination's, no slot, no token, an earlier delivery of its ordering value open).
 */
export type ClaimRefusal = "missing" | "settled" | "in_flight" | "not_due" | "paused" | "pull" | "saturated" | "rate_limited" | "ordered";

export interface ClaimedAttempt {
  deliveryId: string;
  organizationId: string;
  endpointId: string;
  /** The destination it is handed to: its lane (x-inbox-destination-id). */
  destinationId: string;
  /** When the attempt began (the database's clock); its attempts row is written when it ends. */
  startedAt: Date;
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

/** A claim's row, from the claim statement or a chain's claim in the finish statement (sql/claim.ts, sql/finish.ts). */
export interface ClaimRow {
  verdict: ClaimRefusal | "claim";
  took_over: boolean;
  delivery_id: string;
  organization_id: string | null;
  endpoint_id: string | null;
  started_at: Date | null;
  attempt_count: number | null;
  auto_attempt_count: number | null;
  trigger: DeliverTrigger | null;
  headers: Record<string, string> | null;
  body: Buffer | null;
  /** CLAIM's only (a pull presents them), not a chain's. */
  received_at?: Date | null;
  event_type?: string | null;
  external_id?: string | null;
  destination_url: string;
  timeout_ms: number;
  max_attempts: number;
  retry_base_seconds: number;
  outbound_secret_encrypted: string | null;
}

/** What a claim statement's row means. */
export function claimResult(row: ClaimRow | undefined, destinationId: string): ClaimResult {
  if (!row) return { verdict: "missing" };
  if (row.verdict !== "claim") return { verdict: row.verdict };
  return {
    verdict: "claimed",
    attempt: {
      deliveryId: row.delivery_id,
      organizationId: row.organization_id!,
      endpointId: row.endpoint_id!,
      destinationId,
      startedAt: row.started_at!,
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
