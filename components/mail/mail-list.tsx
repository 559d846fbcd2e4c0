// The organization's mails, newest first, each opening to its plain-text body.
import type { MailView } from "@/lib/mail/list-mails";

const when = (date: Date) => `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;

const tones: Record<MailView["status"], string> = {
  queued: "bg-slate-100 text-slate-700",
  logged: "bg-indigo-50 text-indigo-700",
  sent: "bg-emerald-50 text-emerald-700",
  retrying: "bg-amber-50 text-amber-800",
  failed: "bg-red-50 text-red-700",
};

export function MailList({ mails }: { mails: MailView[] }) {
  if (mails.length === 0) return <p className="text-sm text-slate-600">No mail yet. Alert mails appear here as they are sent; a mail that carries a private link (an invitation, an address confirmation) appears only to its recipient.</p>;
  return (
    <ul className="divide-y divide-slate-200" aria-label="Mails">
      {mails.map((mail) => (
        <li key={mail.id} className="py-2">
          <details>
            <summary className="flex cursor-pointer flex-wrap items-baseline gap-x-3 text-sm">
              <span className="font-medium">{mail.subject}</span>
              <span className="text-slate-600">to {mail.recipients.join(", ")}</span>
              <span className={`rounded px-1.5 text-xs ${tones[mail.status]}`}>{mail.status}</span>
              <time className="ml-auto text-xs text-slate-500" dateTime={mail.createdAt.toISOString()}>{when(mail.createdAt)}</time>
            </summary>
            {mail.error ? (
              <p className="mt-2 text-xs text-amber-800">
                {mail.attempts} attempt{mail.attempts === 1 ? "" : "s"}; last error: {mail.error}
              </p>
            ) : null}
            {mail.carriesSecret ? (
              <p className="mt-2 text-xs text-slate-600">
                This mail carried a link meant for its recipient alone: it went only to them, and no page shows it.
              </p>
            ) : null}
            <pre className="mt-2 whitespace-pre-wrap rounded bg-slate-50 p-3 font-mono text-xs text-slate-800">{mail.textBody}</pre>
          </details>
        </li>
      ))}
    </ul>
  );
}
