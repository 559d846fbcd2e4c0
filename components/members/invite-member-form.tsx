"use client";
// Invite by email with a role. After an error the form keeps what was typed; after a success it clears
// and says where the mail went. (A select takes a new defaultValue only when mounted anew: the key.)

import { useActionState } from "react";
import type { FormState } from "@/lib/auth/form-action";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, SelectField } from "@/components/ui/field";
import { ROLE_OPTIONS } from "./role-options";

type State = FormState<{ invitedEmail: string }>;

export function InviteMemberForm({ action }: { action: (state: State, form: FormData) => Promise<State> }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-3" aria-label="Invite a member">
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.ok && state.invitedEmail ? <Alert tone="success">Invitation sent to {state.invitedEmail}. The link works for 7 days.</Alert> : null}
      <div className="flex flex-wrap items-end gap-3">
        <div className="min-w-56 flex-1">
          <Field label="Email" name="email" type="email" required autoComplete="off" defaultValue={state.values?.email} />
        </div>
        <div className="w-40">
          <SelectField label="Role" name="role" options={ROLE_OPTIONS} defaultValue={state.values?.role ?? "viewer"} key={state.values?.role ?? "viewer"} />
        </div>
        <Button type="submit" disabled={pending}>Send invitation</Button>
      </div>
    </form>
  );
}
