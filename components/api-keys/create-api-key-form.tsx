"use client";

import { useActionState } from "react";
import type { CreateApiKeyState } from "@/app/(dashboard)/api-keys/actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { CopyableValue } from "@/components/ui/copy-button";
import { Field } from "@/components/ui/field";

export function CreateApiKeyForm({ action }: { action: (state: CreateApiKeyState, form: FormData) => Promise<CreateApiKeyState> }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <div className="space-y-3">
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.apiKey ? (
        <div className="space-y-2">
          <Alert tone="success">Key created. Copy it now: it will not be shown again.</Alert>
          <CopyableValue value={state.apiKey} testId="new-api-key" />
        </div>
      ) : null}
      <form action={formAction} className="flex items-end gap-3">
        <div className="flex-1"><Field label="Key name" name="name" placeholder="CI deploys" defaultValue={state.values?.name} /></div>
        <Button type="submit" disabled={pending}>Create key</Button>
      </form>
    </div>
  );
}
