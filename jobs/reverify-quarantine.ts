// reverify-quarantine: after an endpoint's secret is rotated (queued by rotateEndpointSecret in its
// transaction), admits every quarantined request of the endpoint that verifies now
// (lib/quarantine/reverify-quarantined.ts); a second pass 15 s later takes what web processes still
// holding the old secret in their cache refused meanwhile. Bounded: a quarantine holds at most
// QUARANTINE_MAX_REQUESTS rows, read 100 at a time.
import { createCtx } from "@/lib/context";
import { REVERIFY_SECOND_PASS_MS } from "@/lib/endpoints/rotate-endpoint-secret";
import { NotFoundError } from "@/lib/errors";
import { enqueue } from "@/lib/queue/enqueue";
import { jobSpec, registeredTask } from "@/lib/queue/job-registry";
import { reverifyQuarantined } from "@/lib/quarantine/reverify-quarantined";


export const reverifyQuarantineTask = registeredTask("reverify-quarantine", async ({ organizationId, endpointId, again }) => {
  const ctx = createCtx(organizationId, { type: "system" });
  try {
    await reverifyQuarantined({ ctx, input: { endpointId } });
  } catch (error) {
    if (error instanceof NotFoundError) return; // deleted since: its quarantine went with it
    throw error;
  }
  if (!again) await enqueue(ctx.db, [jobSpec("reverify-quarantine", { organizationId, endpointId, again: true }, { runAt: new Date(Date.now() + REVERIFY_SECOND_PASS_MS) })]);
});
