// purge-endpoint-deliveries: removes a deleted endpoint's deliveries and attempts in bounded batches
// (lib/endpoints/purge-endpoint-deliveries.ts). Queued by deleteEndpoint in its transaction. A run
// lasts at most a few seconds, then queues the rest as a new job (so a worker's slot and its
// shutdown are never held long); the last pass queues a sweep a minute later for stragglers.
import { enqueue } from "@/lib/queue/enqueue";
import { jobSpec, registeredTask } from "@/lib/queue/job-registry";
import { createCtx } from "@/lib/context";
import { purgeAloneInOrganization, purgeEndpointDeliveries } from "@/lib/endpoints/purge-endpoint-deliveries";
import { logger } from "@/lib/logging/logger";

const RUN_BUDGET_MS = 5_000;
/** When another purge of the organization is running, this one looks again after this long. */
const BUSY_RETRY_MS = 2_000;
/** How long after the purge the sweep runs: well past the ingest endpoint cache (5 s) and a store's deadline (INGEST_STORE_TIMEOUT_MS). */
const SWEEP_DELAY_MS = 60_000;

export const purgeEndpointDeliveriesTask = registeredTask("purge-endpoint-deliveries", async ({ organizationId, endpointId, sweep }, helpers) => {
  const ctx = createCtx(organizationId, { type: "system" });
  const outcome = await purgeAloneInOrganization(organizationId, () =>
    purgeEndpointDeliveries({ ctx, input: { endpointId, budgetMs: RUN_BUDGET_MS, signal: helpers.abortSignal } }));
  if (!outcome) {
    await enqueue(ctx.db, [jobSpec("purge-endpoint-deliveries", { organizationId, endpointId, sweep }, { runAt: new Date(Date.now() + BUSY_RETRY_MS) })]);
    return;
  }
  const { deleted, done } = outcome;
  if (!done) await enqueue(ctx.db, [jobSpec("purge-endpoint-deliveries", { organizationId, endpointId, sweep })]);
  else if (!sweep) await enqueue(ctx.db, [jobSpec("purge-endpoint-deliveries", { organizationId, endpointId, sweep: true }, { runAt: new Date(Date.now() + SWEEP_DELAY_MS) })]);
  if (deleted > 0) logger.info({ jobId: helpers.job.id, organizationId, endpointId }, `[purge-endpoint-deliveries] endpoint ${endpointId}: ${deleted} deliveries removed${done ? "" : ", more to go"}`);
});
