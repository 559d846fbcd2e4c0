"use client";

import { useActionState, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import type { FormState } from "@/lib/auth/form-action";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

/** Deleting takes everything the organization holds, for every member, so its name must be typed first. */
export function DeleteOrganizationForm({ action, name }: { action: Action; name: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  const [typed, setTyped] = useState("");
  return (
    <form action={formAction} aria-label="Delete organization" className="space-y-3">
      <p className="text-sm text-slate-700">
        Deleting ends every member&apos;s access and every API key at once; its endpoints stop receiving and its deliveries,
        settings and history are removed in the background. This cannot be undone.
      </p>
      {state.error ? <Alert>{state.error}</Alert> : null}
      <div className="flex flex-wrap items-end gap-3">
        <div className="min-w-64 flex-1">
          <Field label={`Type “${name}” to confirm`} name="confirmName" autoComplete="off" value={typed} onChange={(event) => setTyped(event.target.value)} />
        </div>
        <Button type="submit" variant="danger" disabled={pending || typed.trim() !== name}>Delete organization</Button>
      </div>
    </form>
  );
}
