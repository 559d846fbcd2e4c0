// notify-alert-channel: sends one notification to one Slack, webhook or PagerDuty channel
// (lib/alerts/send-alert-notification.ts). A failure throws, so graphile-worker retries this job alone with
// its backoff: another channel's or organization's notifications are other jobs and never wait for it.
import { sendAlertNotification } from "@/lib/alerts/send-alert-notification";
import { createCtx } from "@/lib/context";
import { registeredTask } from "@/lib/queue/job-registry";

export const notifyAlertChannelTask = registeredTask("notify-alert-channel", async ({ organizationId, notificationId }, helpers) => {
  const ctx = createCtx(organizationId, { type: "system" });
  await sendAlertNotification({ ctx, input: { notificationId, finalAttempt: helpers.job.attempts >= helpers.job.max_attempts } });
});
