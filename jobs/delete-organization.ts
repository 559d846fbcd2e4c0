// delete-organization: removes a deleted organization's data in bounded batches
// (lib/organizations/purge-organization.ts), then its row. Queued by deleteOrganization in the
// transaction that ended access. A run lasts at most a few seconds, then queues the rest as a new job;
// once everything is gone it queues a final pass a minute later, which sweeps what ingest stored
// meanwhile and removes the organization's row.
import { createCtx } from "@/lib/context";
import { purgeAloneInOrganization } from "@/lib/endpoints/purge-endpoint-deliveries";
import { organizationIsDeleted, purgeOrganization, removeDeletedOrganizationRow } from "@/lib/organizations/purge-organization";
import { enqueue } from "@/lib/queue/enqueue";
import { jobSpec, registeredTask } from "@/lib/queue/job-registry";
import { logger } from "@/lib/logging/logger";

const RUN_BUDGET_MS = 5_000;
/** When a purge of the organization (an endpoint's) is running, this one looks again after this long. */
const BUSY_RETRY_MS = 2_000;
/** How long after the bulk of the data the final pass runs: well past the ingest endpoint cache (5 s) and a store's deadline. */
const FINAL_PASS_DELAY_MS = 60_000;

export const deleteOrganizationTask = registeredTask("delete-organization", async ({ organizationId, final }, helpers) => {
  const ctx = createCtx(organizationId, { type: "system" });
  const log = logger.child({ jobId: helpers.job.id, organizationId });
  if (!(await organizationIsDeleted(ctx))) return; // gone already (a repeated job), or never deleted: nothing to do
  const outcome = await purgeAloneInOrganization(organizationId, () => purgeOrganization({ ctx, input: { budgetMs: RUN_BUDGET_MS, signal: helpers.abortSignal } }));
  if (!outcome) {
    await enqueue(ctx.db, [jobSpec("delete-organization", { organizationId, final }, { runAt: new Date(Date.now() + BUSY_RETRY_MS) })]);
    return;
  }
  if (outcome.endpoints + outcome.deliveries > 0) {
    log.info(`[delete-organization] ${organizationId}: ${outcome.endpoints} endpoints, ${outcome.deliveries} deliveries removed${outcome.done ? "" : ", more to go"}`);
  }
  if (!outcome.done) await enqueue(ctx.db, [jobSpec("delete-organization", { organizationId, final })]);
  else if (!final) await enqueue(ctx.db, [jobSpec("delete-organization", { organizationId, final: true }, { runAt: new Date(Date.now() + FINAL_PASS_DELAY_MS) })]);
  else if (await removeDeletedOrganizationRow(ctx)) log.info(`[delete-organization] ${organizationId}: removed`);
});
