"use client";
// The invite page's forms. The email is the invited one, shown but not editable: the invitation is for
// that address. A refused form keeps what was typed (never the password) and says why.

import { useActionState } from "react";
import type { FormState } from "@/lib/auth/form-action";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

interface Props {
  token: string;
  email: string;
  organizationName: string;
  action: Action;
}

export function SignUpThroughInvitationForm({ token, email, organizationName, action }: Props) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-4" aria-label="Create your account">
      <h2 className="text-base font-semibold">Create your account</h2>
      {state.error ? <Alert>{state.error}</Alert> : null}
      <input type="hidden" name="token" value={token} />
      <Field label="Email" name="email" type="email" value={email} readOnly autoComplete="email" />
      <Field label="Password" name="password" type="password" required autoComplete="new-password" hint="At least 10 characters." />
      <Button type="submit" disabled={pending} className="w-full">Sign up and join {organizationName}</Button>
    </form>
  );
}

export function SignInToAcceptForm({ token, email, organizationName, action }: Props) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-4" aria-label="Sign in">
      <h2 className="text-base font-semibold">Sign in to accept</h2>
      <p className="text-sm text-slate-600">{email} already has an account: signing in with it joins {organizationName}.</p>
      {state.error ? <Alert>{state.error}</Alert> : null}
      <input type="hidden" name="token" value={token} />
      <Field label="Email" name="email" type="email" value={email} readOnly autoComplete="email" />
      <Field label="Password" name="password" type="password" required autoComplete="current-password" />
      <Button type="submit" disabled={pending} className="w-full">Sign in and join {organizationName}</Button>
    </form>
  );
}

export function JoinOrganizationForm({ token, organizationName, role, action }: Props & { role: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-4">
      {state.error ? <Alert>{state.error}</Alert> : null}
      <input type="hidden" name="token" value={token} />
      <Button type="submit" disabled={pending} className="w-full">Join {organizationName} as {role}</Button>
    </form>
  );
}
