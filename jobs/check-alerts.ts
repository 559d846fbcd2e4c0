// check-alerts: run every minute by the worker's cron (jobs/crontab.ts). Evaluates every endpoint's alerts
// as of now; the mails it decides on are queued as send-mail jobs in the same transactions.
import { checkAlerts } from "@/lib/alerts/check-alerts";
import { registeredTask } from "@/lib/queue/job-registry";

export const checkAlertsTask = registeredTask("check-alerts", async () => {
  await checkAlerts({ input: { now: new Date() } });
});
