// The purge-endpoint-deliveries job's name, payload and spec, shared by deleteEndpoint (which queues
// it in its own transaction) and jobs/purge-endpoint-deliveries.ts (which runs it and queues its sequels).
import { z } from "zod";
import type { JobSpec } from "@/lib/queue/enqueue";

export const PURGE_TASK = "purge-endpoint-deliveries";

/** Checked at run time: a job enqueued by an older release may carry an older shape. */
export const PurgePayload = z.object({
  organizationId: z.string().min(1).max(100),
  endpointId: z.string().min(1).max(100),
  /** The last pass, a while after the rest: it removes deliveries stored after the first passes by ingest that still had the endpoint cached. */
  sweep: z.boolean().default(false),
});
export type PurgePayload = z.input<typeof PurgePayload>;

/** How long after the purge the sweep runs: well past the ingest endpoint cache (5 s) and a store's deadline (INGEST_STORE_TIMEOUT_MS). */
export const SWEEP_DELAY_MS = 60_000;

/** A purge's job; purges of one organization take turns (purgeAloneInOrganization). */
export function purgeJobSpec(payload: PurgePayload, runAt?: Date): JobSpec {
  return {
    identifier: PURGE_TASK,
    payload: { ...payload },
    run_at: runAt ? runAt.toISOString() : null,
    max_attempts: 25,
  };
}
