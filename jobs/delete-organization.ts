// delete-organization: removes a deleted organization's data in bounded batches
// (lib/organizations/purge-organization.ts), then its row. Queued by deleteOrganization in the
// transaction that ended access. A run lasts at most a few seconds, then queues the rest as a new job;
// once everything is gone it queues a final pass a minute later, which sweeps what ingest stored
// meanwhile and removes the organization's row.
import type { Task } from "graphile-worker";
import { createCtx } from "@/lib/context";
import { purgeAloneInOrganization } from "@/lib/endpoints/purge-endpoint-deliveries";
import { DeleteOrganizationPayload, deleteOrganizationJobSpec, FINAL_PASS_DELAY_MS } from "@/lib/organizations/delete-organization-job";
import { organizationIsDeleted, purgeOrganization, removeDeletedOrganizationRow } from "@/lib/organizations/purge-organization";
import { enqueue } from "@/lib/queue/enqueue";
import { logger } from "@/lib/logging/logger";

const RUN_BUDGET_MS = 5_000;
/** When a purge of the organization (an endpoint's) is running, this one looks again after this long. */
const BUSY_RETRY_MS = 2_000;

export const deleteOrganizationTask: Task = async (payload, helpers) => {
  const parsed = DeleteOrganizationPayload.safeParse(payload);
  if (!parsed.success) {
    logger.error({ jobId: helpers.job.id }, `[delete-organization] job ${helpers.job.id} has an unreadable payload, dropped: ${parsed.error.issues[0]?.message}`);
    return;
  }
  const { organizationId, final } = parsed.data;
  const ctx = createCtx(organizationId, { type: "system" });
  const log = logger.child({ jobId: helpers.job.id, organizationId });
  if (!(await organizationIsDeleted(ctx))) return; // gone already (a repeated job), or never deleted: nothing to do
  const outcome = await purgeAloneInOrganization(organizationId, () => purgeOrganization({ ctx, input: { budgetMs: RUN_BUDGET_MS, signal: helpers.abortSignal } }));
  if (!outcome) {
    await enqueue(ctx.db, [deleteOrganizationJobSpec({ organizationId, final }, new Date(Date.now() + BUSY_RETRY_MS))]);
    return;
  }
  if (outcome.endpoints + outcome.deliveries > 0) {
    log.info(`[delete-organization] ${organizationId}: ${outcome.endpoints} endpoints, ${outcome.deliveries} deliveries removed${outcome.done ? "" : ", more to go"}`);
  }
  if (!outcome.done) await enqueue(ctx.db, [deleteOrganizationJobSpec({ organizationId, final })]);
  else if (!final) await enqueue(ctx.db, [deleteOrganizationJobSpec({ organizationId, final: true }, new Date(Date.now() + FINAL_PASS_DELAY_MS))]);
  else if (await removeDeletedOrganizationRow(ctx)) log.info(`[delete-organization] ${organizationId}: removed`);
};
