import { MailList } from "@/components/mail/mail-list";
import { Card } from "@/components/ui/card";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { listMails } from "@/lib/mail/list-mails";
import { smtpUrl } from "@/lib/mail/mail-settings";

export const metadata = { title: "Mailbox · Webhook Inbox" };

// The dev mailbox: with SMTP_URL unset, the mails the product would have sent; with it set, the outbox record.
export default async function MailboxPage() {
  const ctx = await requireDashboardCtx();
  const mails = await listMails({ ctx, input: { limit: 100 } });
  return (
    <>
      <h1 className="text-lg font-semibold">Mailbox</h1>
      <Card>
        <p className="mb-4 text-sm text-slate-600">
          {smtpUrl()
            ? "Mail goes out over SMTP (SMTP_URL). This is the record of what was sent or tried."
            : "SMTP_URL is not set, so no mail leaves this server: what would have been sent is kept here."}
        </p>
        <MailList mails={mails} />
      </Card>
    </>
  );
}
