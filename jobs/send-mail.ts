// send-mail: sends one stored mail (lib/mail/send-mail.ts). A refusal or an unreachable SMTP server throws,
// so graphile-worker retries with its exponential backoff; the failure is written on the mail and on its
// incident first, and cleared from the incident once a mail goes out.
import { recordNotifyOutcome } from "@/lib/alerts/record-notify-outcome";
import { createCtx } from "@/lib/context";
import { MailSendError, sendMail } from "@/lib/mail/send-mail";
import { registeredTask } from "@/lib/queue/job-registry";

export const sendMailTask = registeredTask("send-mail", async ({ organizationId, mailId }, helpers) => {
  const ctx = createCtx(organizationId, { type: "system" });
  try {
    const { incidentId } = await sendMail({ ctx, input: { mailId, finalAttempt: helpers.job.attempts >= helpers.job.max_attempts } });
    if (incidentId) await recordNotifyOutcome({ ctx, input: { incidentId, error: null } });
  } catch (error) {
    if (error instanceof MailSendError && error.incidentId) {
      await recordNotifyOutcome({ ctx, input: { incidentId: error.incidentId, error: `Attempt ${helpers.job.attempts}: ${error.message}` } });
    }
    throw error;
  }
});
