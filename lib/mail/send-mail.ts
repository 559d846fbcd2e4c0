import { and, eq, sql } from "drizzle-orm";
import { mails, type MailStatus } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { createSmtpTransport, mailFrom, smtpUrl } from "./mail-settings";
import { withSecretLink } from "./secret-link";
import { logger } from "@/lib/logging/logger";

/** The SMTP server refused or could not be reached; already recorded on the mail. Thrown so the job retries. */
export class MailSendError extends Error {
  constructor(
    message: string,
    readonly incidentId: string | null,
  ) {
    super(message);
    this.name = "MailSendError";
  }
}

export interface SendMailResult {
  status: MailStatus | "missing";
  incidentId: string | null;
}

function describe(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 1000);
}

/**
 * Sends one stored mail over SMTP_URL, or, without it, logs recipient and subject and keeps it for the dev
 * mailbox (a secret link is then dropped: it reaches its recipient by SMTP or not at all). Every try is recorded on the mail (status, attempts, error). A mail already sent is not sent again
 * (the job is at-least-once).
 */
export async function sendMail({ ctx, input }: { ctx: Ctx; input: { mailId: string; finalAttempt?: boolean } }): Promise<SendMailResult> {
  const scope = and(eq(mails.organizationId, ctx.organizationId), eq(mails.id, input.mailId));
  const [mail] = await ctx.db.select().from(mails).where(scope);
  if (!mail) return { status: "missing", incidentId: null };
  if (mail.status === "sent" || mail.status === "logged") return { status: mail.status, incidentId: mail.incidentId };
  // A settled mail lets go of its secret link: from then on no copy of it is kept anywhere.
  const record = async (values: Partial<typeof mails.$inferInsert>) => {
    const settled = values.status === "sent" || values.status === "logged" || values.status === "failed";
    await ctx.db
      .update(mails)
      .set({ ...values, ...(settled ? { secretLink: null } : {}), attempts: sql`${mails.attempts} + 1`, updatedAt: new Date() })
      .where(scope);
  };

  const url = smtpUrl();
  if (!url) {
    logger.info({ organizationId: ctx.organizationId }, `[mail] SMTP_URL is not set; kept for the dev mailbox: to=${mail.recipients.join(", ")} subject=${JSON.stringify(mail.subject)}`);
    await record({ status: "logged", sentAt: new Date() });
    return { status: "logged", incidentId: mail.incidentId };
  }

  const transport = createSmtpTransport(url);
  const body = mail.secretLink ? withSecretLink({ text: mail.textBody, html: mail.htmlBody }, mail.secretLink) : { text: mail.textBody, html: mail.htmlBody };
  try {
    const info = await transport.sendMail({
      from: mailFrom(),
      to: mail.recipients,
      subject: mail.subject,
      text: body.text,
      html: body.html,
      headers: { "X-Inbox-Mail-Id": mail.id },
    });
    const rejected = (info.rejected ?? []).map(String);
    // An earlier attempt's error stays on the mail: "sent after 2 attempts; the first got 451 …".
    const partial = rejected.length ? { error: `Sent, but these recipients were rejected: ${rejected.join(", ")}` } : {};
    await record({ status: "sent", sentAt: new Date(), messageId: info.messageId ?? null, ...partial });
    return { status: "sent", incidentId: mail.incidentId };
  } catch (error) {
    const message = describe(error);
    await record({ status: input.finalAttempt ? "failed" : "retrying", error: message });
    throw new MailSendError(message, mail.incidentId);
  } finally {
    transport.close();
  }
}
