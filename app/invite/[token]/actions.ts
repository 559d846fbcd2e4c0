"use server";
// The invite page's forms: sign up through the invitation, sign in to accept it, join, or sign out to
// switch accounts. The work is done by lib/invitations verbs (through lib/auth for sign-up and sign-in).
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { auth, signOut } from "@/lib/auth/auth";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { signUpThroughInvitation } from "@/lib/auth/register-invited-account";
import { signInWithPassword } from "@/lib/auth/sign-in-with-password";
import { clientAddress } from "@/lib/http/client-address";
import { acceptInvitation } from "@/lib/invitations/accept-invitation";

const field = (form: FormData, name: string) => String(form.get(name) ?? "");
const invitePath = (token: string) => `/invite/${encodeURIComponent(token)}`;

export async function signUpThroughInvitationAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => signUpThroughInvitation({ token: field(form, "token"), password: field(form, "password") }, await headers()), form);
}

/** Signs in and joins in one step (the sign-in accepts the invitation), landing in the organization. */
export async function signInToAcceptAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(() => signInWithPassword(field(form, "email"), field(form, "password"), "/overview", { invitationToken: field(form, "token") }), form);
}

export async function joinOrganizationAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    const session = await auth();
    if (!session?.userId || !session.sessionId) return { error: "Your session has ended; sign in again to accept." };
    await acceptInvitation({ token: field(form, "token"), userId: session.userId, sessionId: session.sessionId, ip: clientAddress(await headers()) });
    redirect("/overview");
  }, form);
}

export async function signOutForInvitationAction(form: FormData): Promise<void> {
  await signOut({ redirectTo: invitePath(field(form, "token")) });
}
