// GET /confirm-alert-email/:token — the link in an alert-email confirmation mail (no session needed).
import type { Metadata } from "next";
import { Button } from "@/components/ui/button";
import { confirmAlertEmail } from "@/lib/alerts/confirm-alert-email";
import { confirmAlertEmailAction } from "./actions";

export const metadata: Metadata = { title: "Confirm alert mail · Webhook Inbox" };

export default async function ConfirmAlertEmailPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const found = await confirmAlertEmail({ token, confirm: false });
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="w-full max-w-md space-y-4 rounded-lg bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <h1 className="text-lg font-semibold text-slate-900">Alert mail from Webhook Inbox</h1>
        {found.outcome === "awaiting" && (
          <form action={confirmAlertEmailAction} className="space-y-4">
            <p className="text-sm text-slate-700">
              The organization <b>{found.organizationName}</b> asked to send its webhook alerts to <b>{found.email}</b>.
            </p>
            <input type="hidden" name="token" value={token} />
            <Button type="submit">Confirm: send me these alerts</Button>
          </form>
        )}
        {(found.outcome === "confirmed" || found.outcome === "already_confirmed") && (
          <p className="text-sm text-slate-700" role="status">
            Confirmed: <b>{found.email}</b> receives the alerts of <b>{found.organizationName}</b>.
          </p>
        )}
        {found.outcome === "expired" && (
          <p className="text-sm text-slate-700">This link has expired. Ask the organization to save the alert email again for a new one.</p>
        )}
        {found.outcome === "invalid" && <p className="text-sm text-slate-700">This confirmation link is not valid.</p>}
      </div>
    </main>
  );
}
