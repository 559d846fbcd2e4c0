"use client";

import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import type { FormState } from "@/lib/auth/form-action";

export function ChangePasswordForm({ action }: { action: (state: FormState, form: FormData) => Promise<FormState> }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="max-w-sm space-y-4">
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.ok ? <Alert tone="success">Password changed. Your other sessions are signed out.</Alert> : null}
      <Field label="Current password" name="currentPassword" type="password" required autoComplete="current-password" />
      <Field label="New password" name="newPassword" type="password" required autoComplete="new-password" hint="At least 10 characters." />
      <Button type="submit" disabled={pending}>Change password</Button>
    </form>
  );
}
