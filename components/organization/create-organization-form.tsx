"use client";

import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import type { FormState } from "@/lib/auth/form-action";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

/** Names a new organization; on success the action switches to it and opens its overview. */
export function CreateOrganizationForm({ action }: { action: Action }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} aria-label="New organization" className="max-w-md space-y-4">
      {state.error ? <Alert>{state.error}</Alert> : null}
      <Field label="Organization name" name="name" defaultValue={state.values?.name} required maxLength={200} hint="You will be its owner." />
      <Button type="submit" disabled={pending}>{pending ? "Creating…" : "Create organization"}</Button>
    </form>
  );
}
