// apply-retention: every minute (jobs/crontab.ts), removes settled deliveries (with their attempts; whole
// weeks of them as partitions where every organization's retention allows),
// finished mails, resolved incidents and refused requests older than their organization's retention, and
// quarantined requests older than 7 days (or that retention, if shorter), and audit entries past 365 days
// (lib/retention/apply-retention.ts). A run is bounded (RETENTION_RUN_SECONDS, RETENTION_ROWS_PER_RUN);
// what it leaves, the next minute's run takes.
import { applyRetention } from "@/lib/retention/apply-retention";
import { logger } from "@/lib/logging/logger";
import { registeredTask } from "@/lib/queue/job-registry";

export const applyRetentionTask = registeredTask("apply-retention", async (_payload, helpers) => {
  const started = performance.now();
  const log = logger.child({ jobId: helpers.job.id });
  const { ran, organizations, deleted, weeksDropped, finished } = await applyRetention({ signal: helpers.abortSignal });
  if (weeksDropped.weeks.length > 0) log.info(`[apply-retention] dropped the delivery partitions of the weeks of ${weeksDropped.weeks.join(", ")}: ${weeksDropped.deliveries} deliveries`);
  const total = Object.values(deleted).reduce((sum, n) => sum + n, 0);
  if (!ran || total === 0) return;
  log.info(
    `[apply-retention] ${organizations} organization(s): ${deleted.deliveries} deliveries (with their attempts), ${deleted.mails} mails, ` +
      `${deleted.incidents} resolved incidents, ${deleted.refusedRequests} refused requests, ${deleted.quarantinedRequests} quarantined requests removed in ${((performance.now() - started) / 1000).toFixed(1)} s` +
      (finished ? "" : "; more next run"),
  );
});
