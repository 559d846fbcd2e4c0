// reverify-quarantine: after an endpoint's secret is rotated (queued by rotateEndpointSecret in its
// transaction), admits every quarantined request of the endpoint that verifies now
// (lib/quarantine/reverify-quarantined.ts); a second pass 15 s later takes what web processes still
// holding the old secret in their cache refused meanwhile. Bounded: a quarantine holds at most
// QUARANTINE_MAX_REQUESTS rows, read 100 at a time.
import type { Task } from "graphile-worker";
import { createCtx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { enqueue } from "@/lib/queue/enqueue";
import { ReverifyPayload, reverifyJobSpec, SECOND_PASS_DELAY_MS } from "@/lib/quarantine/reverify-job";
import { reverifyQuarantined } from "@/lib/quarantine/reverify-quarantined";
import { logger } from "@/lib/logging/logger";

export const reverifyQuarantineTask: Task = async (payload, helpers) => {
  const parsed = ReverifyPayload.safeParse(payload);
  if (!parsed.success) {
    // Retrying cannot fix a payload; say so once and drop the job.
    logger.error({ jobId: helpers.job.id }, `[reverify-quarantine] job ${helpers.job.id} has an unreadable payload, dropped: ${parsed.error.issues[0]?.message}`);
    return;
  }
  const { organizationId, endpointId, again } = parsed.data;
  const ctx = createCtx(organizationId, { type: "system" });
  try {
    await reverifyQuarantined({ ctx, input: { endpointId } });
  } catch (error) {
    if (error instanceof NotFoundError) return; // deleted since: its quarantine went with it
    throw error;
  }
  if (!again) await enqueue(ctx.db, [reverifyJobSpec({ organizationId, endpointId, again: true }, new Date(Date.now() + SECOND_PASS_DELAY_MS))]);
};
