"use client";

import Link from "next/link";
import { useActionState } from "react";
import type { FormState } from "@/lib/auth/form-action";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";

interface Props {
  mode: "signin" | "signup";
  action: (state: FormState, form: FormData) => Promise<FormState>;
  /** Sign-in: the page to come back to (already checked to be a path of this site). */
  returnTo?: string | null;
}

export function AuthForm({ mode, action, returnTo }: Props) {
  const [state, formAction, pending] = useActionState(action, {});
  const signup = mode === "signup";
  return (
    <form action={formAction} className="space-y-4">
      <h1 className="text-xl font-semibold">{signup ? "Create your account" : "Sign in to Webhook Inbox"}</h1>
      {state.error ? <Alert>{state.error}</Alert> : null}
      {returnTo ? <input type="hidden" name="callbackUrl" value={returnTo} /> : null}
      {signup ? <Field label="Organization name" name="organizationName" required autoComplete="organization" defaultValue={state.values?.organizationName} /> : null}
      <Field label="Email" name="email" type="email" required autoComplete="email" defaultValue={state.values?.email} />
      <Field
        label="Password"
        name="password"
        type="password"
        required
        autoComplete={signup ? "new-password" : "current-password"}
        hint={signup ? "At least 10 characters." : undefined}
      />
      <Button type="submit" disabled={pending} className="w-full">
        {signup ? "Sign up" : "Sign in"}
      </Button>
      <p className="text-center text-sm text-slate-600">
        {signup ? (
          <>Have an account? <Link className="text-indigo-700 underline" href="/login">Sign in</Link></>
        ) : (
          <>New here? <Link className="text-indigo-700 underline" href="/signup">Create an account</Link></>
        )}
      </p>
    </form>
  );
}
