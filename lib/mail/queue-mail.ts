import { mails } from "@/db/schema";
import { enqueue } from "@/lib/queue/enqueue";
import { withTransaction, type Ctx } from "@/lib/context";
import { newId } from "@/lib/ids";
import { jobSpec } from "@/lib/queue/job-registry";

export interface QueueMailInput {
  to: string[];
  subject: string;
  text: string;
  html: string;
  incidentId?: string | null;
  /**
   * A link for the recipient alone: the bodies hold SECRET_LINK_PLACEHOLDER where it goes, and only the
   * send puts it in (lib/mail/secret-link.ts). One recipient only: a secret is never shared.
   */
  secretLink?: string;
}

/**
 * Stores a mail and enqueues its send-mail job in the caller's transaction: the mail exists if and only if
 * what caused it committed, and a failing SMTP server only delays it (the job retries with backoff).
 */
export async function queueMail({ ctx, input }: { ctx: Ctx; input: QueueMailInput }): Promise<{ id: string }> {
  const id = newId("mail");
  if (input.secretLink !== undefined && input.to.length !== 1) throw new Error("A mail with a secret link goes to exactly one recipient.");
  await withTransaction(ctx, async ({ db }) => {
    await db.insert(mails).values({
      id,
      organizationId: ctx.organizationId,
      incidentId: input.incidentId ?? null,
      recipients: input.to,
      subject: input.subject.replace(/[\r\n]+/g, " ").trim(),
      textBody: input.text,
      htmlBody: input.html,
      secretLink: input.secretLink ?? null,
      carriesSecret: input.secretLink !== undefined,
    });
    await enqueue(db, [jobSpec("send-mail", { organizationId: ctx.organizationId, mailId: id })]);
  });
  return { id };
}
