"use client";

import { useActionState } from "react";
import type { RotateSecretState } from "@/app/(dashboard)/endpoints/[id]/secret-actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyableValue } from "@/components/ui/copy-button";
import { Field } from "@/components/ui/field";

type Action = (state: RotateSecretState, form: FormData) => Promise<RotateSecretState>;

const utc = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

/** New secret now, old one valid for a grace period; a generated secret is shown once, here. */
export function RotateSecretForm({ action, endpointId, generates, providerName }: { action: Action; endpointId: string; generates: boolean; providerName: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} aria-label="Rotate signing secret" className="space-y-3">
      <input type="hidden" name="id" value={endpointId} />
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.ok ? (
        <div className="space-y-2">
          <Alert tone="success">
            Secret rotated. The previous secret keeps verifying until {utc(state.previousSecretValidUntil!)}; switch your sender before then.
          </Alert>
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
            label={generates ? "New secret (optional)" : `New secret from ${providerName}`}
            name="secret"
            type="password"
            autoComplete="off"
            required={!generates}
            hint={generates ? "Leave empty to generate one." : `Roll the secret at ${providerName} first, then paste the new one.`}
          />
        </div>
        <Button type="submit" variant="secondary" disabled={pending}>Rotate signing secret</Button>
      </div>
    </form>
  );
}
