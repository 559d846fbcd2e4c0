"use client";

import { useActionState, useState } from "react";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import type { FormState } from "@/lib/auth/form-action";

type Action = (state: FormState, form: FormData) => Promise<FormState>;

/** Deleting takes the endpoint's deliveries with it, so the name must be typed first. */
export function DeleteEndpointForm({ action, endpointId, name }: { action: Action; endpointId: string; name: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  const [typed, setTyped] = useState("");
  return (
    <form action={formAction} aria-label="Delete endpoint" className="space-y-3">
      <input type="hidden" name="id" value={endpointId} />
      <p className="text-sm text-slate-700">
        Deleting removes the endpoint and every delivery it holds. Its ingest URL answers 404 from then on. This cannot be undone.
      </p>
      {state.error ? <Alert>{state.error}</Alert> : null}
      <div className="flex flex-wrap items-end gap-3">
        <div className="min-w-64 flex-1">
          <Field label={`Type “${name}” to confirm`} name="confirmName" autoComplete="off" value={typed} onChange={(event) => setTyped(event.target.value)} />
        </div>
        <Button type="submit" variant="danger" disabled={pending || typed.trim() !== name}>Delete endpoint</Button>
      </div>
    </form>
  );
}
