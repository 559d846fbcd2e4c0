// send-mail: sends one stored mail (lib/mail/send-mail.ts). A refusal or an unreachable SMTP server throws,
// so graphile-worker retries with its exponential backoff; the failure is written on the mail and on its
// incident first, and cleared from the incident once a mail goes out.
import type { Task } from "graphile-worker";
import { recordNotifyOutcome } from "@/lib/alerts/record-notify-outcome";
import { createCtx } from "@/lib/context";
import { MailSendError, sendMail } from "@/lib/mail/send-mail";
import { SendMailPayload } from "@/lib/mail/send-mail-job";
import { logger } from "@/lib/logging/logger";

export const sendMailTask: Task = async (payload, helpers) => {
  const parsed = SendMailPayload.safeParse(payload);
  if (!parsed.success) {
    // Retrying cannot fix a payload; say so once and drop the job.
    logger.error({ jobId: helpers.job.id }, `[send-mail] job ${helpers.job.id} has an unreadable payload, dropped: ${parsed.error.issues[0]?.message}`);
    return;
  }
  const { organizationId, mailId } = parsed.data;
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
};
