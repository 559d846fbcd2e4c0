// The reverify-quarantine job's name, payload and spec, shared by rotateEndpointSecret (which queues it
// in its own transaction) and jobs/reverify-quarantine.ts (which runs it and queues its second pass).
import { z } from "zod";
import type { JobSpec } from "@/lib/queue/enqueue";

export const REVERIFY_TASK = "reverify-quarantine";

/** Checked at run time: a job enqueued by an older release may carry an older shape. */
export const ReverifyPayload = z.object({
  organizationId: z.string().min(1).max(100),
  endpointId: z.string().min(1).max(100),
  /** The second pass, a while after the first: requests other web processes refused with the old secret still cached. */
  again: z.boolean().default(false),
});
export type ReverifyPayload = z.input<typeof ReverifyPayload>;

/** Past the ingest endpoint cache (5 s) of every web process, and a refused request's quarantine write. */
export const SECOND_PASS_DELAY_MS = 15_000;

export function reverifyJobSpec(payload: ReverifyPayload, runAt?: Date): JobSpec {
  return {
    identifier: REVERIFY_TASK,
    payload: { ...payload },
    run_at: runAt ? runAt.toISOString() : null,
    // One pending pass per endpoint and kind: rotating twice in a row re-verifies once.
    job_key: `${REVERIFY_TASK}:${payload.endpointId}${payload.again ? ":again" : ""}`,
    max_attempts: 5,
  };
}
