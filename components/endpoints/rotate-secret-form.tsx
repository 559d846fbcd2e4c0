"use client";

import { useActionState } from "react";
import type { RotateSecretState } from "@/app/(dashboard)/endpoints/[id]/secret-actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyableValue } from "@/components/ui/copy-button";
import { Field } from "@/components/ui/field";

type Action = (state: RotateSecretState, form: FormData) => Promise<RotateSecretState>;

const utc = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

const requests = (n: number) => `${n} quarantined ${n === 1 ? "request" : "requests"}`;

/** What the new secret re-admitted from the quarantine. */
function Readmitted({ count, duplicates }: { count: number; duplicates: number }) {
  return (
    <p className="text-sm text-slate-700" data-testid="readmitted">
      {count === 0
        ? "Nothing in the quarantine verifies with it."
        : `${requests(count)} verified with it and became deliveries${duplicates ? ` (${duplicates} already received, not stored twice)` : ""}.`}
    </p>
  );
}

/**
 * New secret now, old one valid for a grace period; a generated secret is shown once, here. `awaiting`: the
 * endpoint was created without the secret its provider issues, and this sets it.
 */
export function RotateSecretForm({ action, endpointId, generates, providerName, awaiting = false }: { action: Action; endpointId: string; generates: boolean; providerName: string; awaiting?: boolean }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} aria-label={awaiting ? "Set signing secret" : "Rotate signing secret"} className="space-y-3">
      <input type="hidden" name="id" value={endpointId} />
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.ok ? (
        <div className="space-y-2">
          <Alert tone="success">
            {state.previousSecretValidUntil
              ? `Secret rotated. The previous secret keeps verifying until ${utc(state.previousSecretValidUntil)}; switch your sender before then.`
              : "Signing secret set: requests signed with it are delivered from now on."}
          </Alert>
          <Readmitted count={state.readmitted ?? 0} duplicates={state.duplicates ?? 0} />
          {state.secret ? (
            <div>
              <div className="text-sm font-medium text-slate-700">New signing secret — shown once, copy it now</div>
              <CopyableValue value={state.secret} testId="rotated-secret" />
            </div>
          ) : null}
        </div>
      ) : null}
      <div className="flex flex-wrap items-end gap-3">
        <div className="min-w-64 flex-1">
          <Field
            label={generates ? "New secret (optional)" : awaiting ? `Signing secret from ${providerName}` : `New secret from ${providerName}`}
            name="secret"
            type="password"
            autoComplete="off"
            required={!generates}
            hint={generates ? "Leave empty to generate one." : awaiting ? `The secret ${providerName} shows for this ingest URL; what it signed meanwhile is delivered.` : `Roll the secret at ${providerName} first, then paste the new one.`}
          />
        </div>
        <Button type="submit" variant={awaiting ? "primary" : "secondary"} disabled={pending}>{awaiting ? "Set signing secret" : "Rotate signing secret"}</Button>
      </div>
    </form>
  );
}
