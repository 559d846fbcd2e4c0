import { sql } from "drizzle-orm";
import { organizations } from "@/db/schema";
import { eq } from "drizzle-orm";
import { withTransaction, type Ctx } from "@/lib/context";
import { queueMail } from "@/lib/mail/queue-mail";
import { SECRET_LINK_PLACEHOLDER } from "@/lib/mail/secret-link";
import { alertEmailStatus, type AlertEmailStatus } from "./alert-email-status";
import { ALERT_EMAIL_CONFIRMATION, confirmationUrl, newAlertEmailToken } from "./alert-email-token";

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Called when an endpoint's alertEmail is set. A member's address is used as it is. Any other address gets
 * one confirmation mail (at most one an hour), and alerts go to the owners until it is confirmed: our
 * server must not become a way to mail strangers.
 */
export async function requestAlertEmailConfirmation({ ctx, input }: { ctx: Ctx; input: { email: string } }): Promise<AlertEmailStatus> {
  const email = input.email.trim().toLowerCase();
  return withTransaction(ctx, async (ctx) => {
    const status = await alertEmailStatus({ ctx, input: { email } });
    if (status !== "unconfirmed") return status;
    const { token, tokenHash } = newAlertEmailToken();
    const { validForMs, resendAfterMs } = ALERT_EMAIL_CONFIRMATION;
    // A new token only when none was sent within the hour: the insert, or an update of a stale row.
    const [fresh] = await ctx.db.execute<{ email: string }>(sql`
      insert into alert_email_confirmations (organization_id, email, token_hash, token_expires_at, last_sent_at)
      values (${ctx.organizationId}, ${email}, ${tokenHash}, now() + ${`${validForMs} milliseconds`}::interval, now())
      on conflict (organization_id, email) do update
        set token_hash = excluded.token_hash, token_expires_at = excluded.token_expires_at, last_sent_at = now()
        where alert_email_confirmations.confirmed_at is null
          and alert_email_confirmations.last_sent_at < now() - ${`${resendAfterMs} milliseconds`}::interval
      returning email`);
    if (!fresh) return status;
    const [organization] = await ctx.db
      .select({ name: organizations.name })
      .from(organizations)
      .where(eq(organizations.id, ctx.organizationId));
    const link = SECRET_LINK_PLACEHOLDER; // the send puts confirmationUrl(token) in: it reaches the address alone
    const who = organization?.name ?? "an organization";
    await queueMail({
      ctx,
      input: {
        to: [email],
        secretLink: confirmationUrl(token),
        subject: `[Webhook Inbox] Confirm alert mail for ${who}`,
        text: [
          `Someone in the organization "${who}" on Webhook Inbox asked to send its webhook alerts to this address.`,
          `To receive them, open this link within 7 days and confirm:`,
          link,
          ``,
          `If you did not expect this, ignore this mail: nothing will be sent to you.`,
        ].join("\n"),
        html: `<p>Someone in the organization <b>${escapeHtml(who)}</b> on Webhook Inbox asked to send its webhook alerts to this address.</p>
<p>To receive them, <a href="${link}">confirm within 7 days</a>.</p>
<p>If you did not expect this, ignore this mail: nothing will be sent to you.</p>`,
      },
    });
    return status;
  });
}
