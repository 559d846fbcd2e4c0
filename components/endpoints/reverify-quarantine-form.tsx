"use client";

import { useActionState, useState } from "react";
import type { ReverifyState } from "@/app/(dashboard)/endpoints/[id]/quarantine-actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

type Action = (state: ReverifyState, form: FormData) => Promise<ReverifyState>;
const requests = (n: number) => `${n} quarantined ${n === 1 ? "request" : "requests"}`;

/** "Re-verify quarantined": the first click counts what verifies now (a dry run), the second admits them. */
export function ReverifyQuarantineForm({ action, endpointId }: { action: Action; endpointId: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  const [dismissed, setDismissed] = useState<ReverifyState | null>(null);
  const preview = state.ok && !state.done && state !== dismissed ? state : null;
  return (
    <form action={formAction} aria-label="Re-verify quarantined requests" className="space-y-3">
      <input type="hidden" name="id" value={endpointId} />
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.ok && state.done ? (
        <Alert tone="success">
          {state.count ? `${requests(state.count)} verified and became deliveries${state.duplicates ? ` (${state.duplicates} already received, not stored twice)` : ""}.` : "Nothing in the quarantine verifies with this endpoint's secrets."}
        </Alert>
      ) : null}
      {preview ? (
        <div className="flex flex-wrap items-center gap-3 rounded-md bg-amber-50 p-3 ring-1 ring-amber-200" role="status" data-testid="reverify-preview">
          <span className="text-sm text-amber-900">
            {preview.count === 0 ? "None of the quarantined requests verifies with this endpoint's secrets: nothing to do." : `${requests(preview.count ?? 0)} now ${preview.count === 1 ? "verifies" : "verify"}. Deliver ${preview.count === 1 ? "it" : "them"}?`}
          </span>
          {preview.count ? (
            <Button type="submit" name="intent" value="confirm" disabled={pending}>{`Deliver ${requests(preview.count)}`}</Button>
          ) : null}
          <Button type="button" variant="secondary" onClick={() => setDismissed(state)}>Cancel</Button>
        </div>
      ) : (
        <Button type="submit" name="intent" value="preview" variant="secondary" disabled={pending}>Re-verify quarantined…</Button>
      )}
    </form>
  );
}
