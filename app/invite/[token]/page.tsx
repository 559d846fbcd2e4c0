// GET /invite/:token — the link in an invitation mail: says plainly when it is dead, else names the
// organization and role and lets the person sign up or sign in, then join. No session needed.
import type { Metadata } from "next";
import { JoinOrganizationForm, SignInToAcceptForm, SignUpThroughInvitationForm } from "@/components/invitations/accept-invitation-forms";
import { Button } from "@/components/ui/button";
import { auth } from "@/lib/auth/auth";
import { UNUSABLE_MESSAGES } from "@/lib/invitations/invitation-state";
import { lookUpInvitation } from "@/lib/invitations/look-up-invitation";
import { joinOrganizationAction, signInToAcceptAction, signOutForInvitationAction, signUpThroughInvitationAction } from "./actions";

export const metadata: Metadata = { title: "Invitation · Webhook Inbox" };

const ROLE_MEANING: Record<string, string> = {
  owner: "everything, members and invitations included",
  admin: "everything but members, invitations and deleting the organization",
  viewer: "read only",
};

export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const found = await lookUpInvitation(token);
  const session = found.state === "pending" ? await auth() : null;
  if (session?.sessionCheckFailed) throw new Error("The session could not be checked; the database may be unavailable.");
  const signedInAs = session?.sessionId ? (session.user?.email ?? null) : null;
  return (
    <main className="flex min-h-screen items-center justify-center p-6">
      <div className="w-full max-w-md space-y-4 rounded-lg bg-white p-6 shadow-sm ring-1 ring-slate-200">
        <h1 className="text-lg font-semibold text-slate-900">Invitation to Webhook Inbox</h1>
        {found.state !== "pending" ? (
          <p className="text-sm text-slate-700" role="status" data-testid="invitation-state">{UNUSABLE_MESSAGES[found.state]}</p>
        ) : (
          <>
            <p className="text-sm text-slate-700" data-testid="invitation-summary">
              You are invited to join <b>{found.organizationName}</b> as <b>{found.role}</b> ({ROLE_MEANING[found.role]}). The invitation is for <b>{found.email}</b>.
            </p>
            {signedInAs && signedInAs.toLowerCase() === found.email ? (
              <JoinOrganizationForm token={token} email={found.email} organizationName={found.organizationName} role={found.role} action={joinOrganizationAction} />
            ) : signedInAs ? (
              <form action={signOutForInvitationAction} className="space-y-3">
                <p className="text-sm text-slate-700" role="status">
                  You are signed in as <b>{signedInAs}</b>, but this invitation is for <b>{found.email}</b>. Sign out, then come back here
                  to sign in or sign up as {found.email}.
                </p>
                <input type="hidden" name="token" value={token} />
                <Button type="submit" variant="secondary">Sign out</Button>
              </form>
            ) : found.accountExists ? (
              <SignInToAcceptForm token={token} email={found.email} organizationName={found.organizationName} action={signInToAcceptAction} />
            ) : (
              <SignUpThroughInvitationForm token={token} email={found.email} organizationName={found.organizationName} action={signUpThroughInvitationAction} />
            )}
          </>
        )}
      </div>
    </main>
  );
}
