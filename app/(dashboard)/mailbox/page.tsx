import { MailList } from "@/components/mail/mail-list";
import { Card } from "@/components/ui/card";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { listMails } from "@/lib/mail/list-mails";
import { smtpUrl } from "@/lib/mail/mail-settings";
import { getSignedInUser } from "@/lib/organizations/get-signed-in-user";

export const metadata = { title: "Mailbox · Webhook Inbox" };

// The dev mailbox: with SMTP_URL unset, the mails the product would have sent; with it set, the outbox record.
// A mail with a secret link (invitation, address confirmation) is listed only to its recipient, link removed.
export default async function MailboxPage() {
  const ctx = await requireDashboardCtx();
  const viewer = await getSignedInUser({ input: { userId: ctx.actor.userId } });
  const mails = await listMails({ ctx, input: { viewerEmail: viewer.email, limit: 100 } });
  return (
    <>
      <h1 className="text-lg font-semibold">Mailbox</h1>
      <Card>
        <p className="mb-4 text-sm text-slate-600">
          {smtpUrl()
            ? "Mail goes out over SMTP (SMTP_URL). This is the record of what was sent or tried."
            : "SMTP_URL is not set, so no mail leaves this server: what would have been sent is kept here. Invitations and address confirmations need SMTP_URL: their links go to the recipient alone, never to this page."}
        </p>
        <MailList mails={mails} />
      </Card>
    </>
  );
}
