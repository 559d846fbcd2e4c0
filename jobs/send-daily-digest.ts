// send-daily-digest: run every minute by the worker's cron (jobs/crontab.ts). Queues the daily digest of every
// organization whose hour has come and whose digest of the day has not gone out, each in its own transaction.
import { sendDueDigests } from "@/lib/digest/send-due-digests";
import { registeredTask } from "@/lib/queue/job-registry";

export const sendDailyDigestTask = registeredTask("send-daily-digest", async () => {
  await sendDueDigests({ input: { now: new Date() } });
});
