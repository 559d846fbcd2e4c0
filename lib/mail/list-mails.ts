import { desc, eq } from "drizzle-orm";
import { mails } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { pageLimit } from "@/lib/pagination";

export type MailView = Pick<
  typeof mails.$inferSelect,
  "id" | "incidentId" | "recipients" | "subject" | "textBody" | "status" | "attempts" | "error" | "createdAt" | "sentAt"
>;

/** The organization's latest mails (limit ≤ 200), newest first: the dev mailbox ("logged") and real sends. */
export async function listMails({ ctx, input }: { ctx: Ctx; input: { limit?: unknown } }): Promise<MailView[]> {
  return ctx.db
    .select({
      id: mails.id,
      incidentId: mails.incidentId,
      recipients: mails.recipients,
      subject: mails.subject,
      textBody: mails.textBody,
      status: mails.status,
      attempts: mails.attempts,
      error: mails.error,
      createdAt: mails.createdAt,
      sentAt: mails.sentAt,
    })
    .from(mails)
    .where(eq(mails.organizationId, ctx.organizationId))
    .orderBy(desc(mails.createdAt), desc(mails.id))
    .limit(pageLimit(input.limit));
}
