import { and, desc, eq, not, or, sql } from "drizzle-orm";
import { mails } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { pageLimit } from "@/lib/pagination";
import { withoutSecretLink } from "./secret-link";

export type MailView = Pick<
  typeof mails.$inferSelect,
  "id" | "incidentId" | "recipients" | "subject" | "textBody" | "status" | "attempts" | "error" | "createdAt" | "sentAt" | "carriesSecret"
>;

/**
 * The organization's latest mails (limit ≤ 200), newest first: the dev mailbox ("logged") and real sends, as
 * `viewerEmail` may see them. A mail that carried a secret link (an invitation, an alert-address confirmation)
 * is listed only to its recipient, and never with the link (API.md: a secret reaches only its recipient).
 */
export async function listMails({ ctx, input }: { ctx: Ctx; input: { viewerEmail: string; limit?: unknown } }): Promise<MailView[]> {
  const rows = await ctx.db
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
      carriesSecret: mails.carriesSecret,
    })
    .from(mails)
    .where(
      and(
        eq(mails.organizationId, ctx.organizationId),
        or(not(mails.carriesSecret), sql`lower(${input.viewerEmail}) = any(${mails.recipients})`),
      ),
    )
    .orderBy(desc(mails.createdAt), desc(mails.id))
    .limit(pageLimit(input.limit));
  return rows.map((mail) => (mail.carriesSecret ? { ...mail, textBody: withoutSecretLink(mail.textBody) } : mail));
}
