"use client";

import { useActionState, useState, type ReactNode } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import type { FormState } from "@/lib/auth/form-action";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

/**
 * A destructive form that stays disabled until `name` is typed (the action checks it again, as
 * `confirmName`). `children` says what will go, and carries any hidden fields.
 */
export function TypeToConfirmForm({ action, name, label, submitText, children }: { action: Action; name: string; label: string; submitText: string; children: ReactNode }) {
  const [state, formAction, pending] = useActionState(action, {});
  const [typed, setTyped] = useState("");
  return (
    <form action={formAction} aria-label={label} className="space-y-3">
      {children}
      {state.error ? <Alert>{state.error}</Alert> : null}
      <div className="flex flex-wrap items-end gap-3">
        <div className="min-w-64 flex-1">
          <Field label={`Type “${name}” to confirm`} name="confirmName" autoComplete="off" value={typed} onChange={(event) => setTyped(event.target.value)} />
        </div>
        <Button type="submit" variant="danger" disabled={pending || typed.trim() !== name}>{submitText}</Button>
      </div>
    </form>
  );
}
