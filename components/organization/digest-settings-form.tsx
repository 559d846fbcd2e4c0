"use client";

import { useActionState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field, SelectField } from "@/components/ui/field";
import type { FormState } from "@/lib/auth/form-action";
import type { OrganizationView } from "@/lib/organizations/present-organization";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

const HOURS = [{ value: "", label: "Off" }, ...Array.from({ length: 24 }, (_, hour) => ({ value: String(hour), label: `${String(hour).padStart(2, "0")}:00 UTC` }))];

/** The daily digest: its hour (or off) and who gets it. After a refusal the fields keep what was typed. */
export function DigestSettingsForm({ action, digest, readOnly = false }: { action: Action; digest: OrganizationView["digest"]; readOnly?: boolean }) {
  const [state, formAction, pending] = useActionState(action, {});
  const hour = state.values?.hourUtc ?? (digest ? String(digest.hourUtc) : "");
  const recipients = state.values?.recipients ?? (digest?.recipients ?? []).join(", ");
  return (
    <form action={formAction} aria-label="Daily digest" className="max-w-md space-y-4">
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.ok ? <Alert tone="success">Digest saved.</Alert> : null}
      <fieldset disabled={readOnly} className="space-y-4">
        <SelectField label="Send at" name="hourUtc" defaultValue={hour} options={HOURS} />
        <Field
          label="Recipients"
          name="recipients"
          defaultValue={recipients}
          placeholder="the owners"
          hint="Members' addresses, separated by commas; empty: the organization's owners. One mail a day: per endpoint and destination, the last 24 hours' received, delivered, dead and filtered, the oldest pending age and the top errors."
        />
      </fieldset>
      {readOnly ? null : <Button type="submit" disabled={pending}>{pending ? "Saving…" : "Save digest"}</Button>}
    </form>
  );
}
