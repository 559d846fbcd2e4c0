"use client";

import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import type { FormState } from "@/lib/auth/form-action";
import type { OrganizationView } from "@/lib/organizations/present-organization";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

/** Name and retention of the organization. After a refusal the fields keep what was typed. */
export function OrganizationSettingsForm({ action, organization, readOnly = false }: { action: Action; organization: OrganizationView; readOnly?: boolean }) {
  const [state, formAction, pending] = useActionState(action, {});
  const value = (name: "name" | "retentionDays") => state.values?.[name] ?? String(organization[name]);
  return (
    <form action={formAction} aria-label="Organization settings" className="max-w-md space-y-4">
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.ok ? <Alert tone="success">Settings saved.</Alert> : null}
      <fieldset disabled={readOnly} className="space-y-4">
        <Field label="Organization name" name="name" defaultValue={value("name")} required maxLength={200} />
        {/* No min/max here: the server's message says what is allowed, the same as the API's. */}
        <Field
          label="Retention (days)"
          name="retentionDays"
          type="number"
          inputMode="numeric"
          defaultValue={value("retentionDays")}
          required
          hint="1 to 365. Delivered and dead deliveries, with their attempts, are removed this long after their last change; pending ones never. Resolved incidents, mail already sent and refused requests follow the same period."
        />
      </fieldset>
      {readOnly ? null : <Button type="submit" disabled={pending}>{pending ? "Saving…" : "Save settings"}</Button>}
    </form>
  );
}
