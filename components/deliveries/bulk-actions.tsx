"use client";

import { useActionState, useState } from "react";
import type { BulkKind, BulkState } from "@/app/(dashboard)/deliveries/actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

type Action = (state: BulkState, form: FormData) => Promise<BulkState>;
type Filter = Partial<Record<"endpointId" | "destinationId" | "status" | "eventType" | "since" | "until" | "q", string>>;

const VERB: Record<BulkKind, { preview: string; confirm: (n: number) => string; done: (n: number) => string }> = {
  replay: { preview: "Replay all matching…", confirm: (n) => `Replay ${n} ${n === 1 ? "delivery" : "deliveries"}`, done: (n) => `Replayed ${n} ${n === 1 ? "delivery" : "deliveries"}: they are pending again.` },
  bury: { preview: "Bury all matching…", confirm: (n) => `Bury ${n} ${n === 1 ? "delivery" : "deliveries"}`, done: (n) => `Buried ${n} ${n === 1 ? "delivery" : "deliveries"}: they are dead, kept, and can be replayed.` },
};

/** Bulk replay / bury by filter: the first click counts (a dry run), the second acts. */
export function BulkActions({ action, filter }: { action: Action; filter: Filter }) {
  const [state, formAction, pending] = useActionState(action, {});
  const [dismissed, setDismissed] = useState<BulkState | null>(null);
  const preview = state.ok && !state.done && state !== dismissed ? state : null;
  return (
    <form action={formAction} aria-label="Bulk actions" className="space-y-3">
      {Object.entries(filter).map(([name, value]) => <input key={name} type="hidden" name={name} value={value} />)}
      <p className="text-xs text-slate-500">
        Acts on every delivery the filter above names (endpoint, destination, status, event type, time range{filter.q ? ", and the search" : ""}), on every page. Replay skips
        deliveries with an attempt in flight; bury skips dead and delivered ones.
      </p>
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.ok && state.done && state.kind ? <Alert tone="success">{VERB[state.kind].done(state.count ?? 0)}</Alert> : null}
      {preview && preview.kind ? (
        <div className="flex flex-wrap items-center gap-3 rounded-md bg-amber-50 p-3 ring-1 ring-amber-200" role="status">
          <span className="text-sm text-amber-900">
            {preview.count === 0 ? "No deliveries match: nothing to do." : `${preview.count} ${preview.count === 1 ? "delivery matches" : "deliveries match"}. Confirm?`}
          </span>
          {preview.count ? (
            <Button type="submit" name="intent" value={`${preview.kind}:confirm`} variant={preview.kind === "bury" ? "danger" : "primary"} disabled={pending}>
              {VERB[preview.kind].confirm(preview.count)}
            </Button>
          ) : null}
          <Button type="button" variant="secondary" onClick={() => setDismissed(state)}>Cancel</Button>
        </div>
      ) : (
        <div className="flex flex-wrap gap-2">
          <Button type="submit" name="intent" value="replay:preview" variant="secondary" disabled={pending}>{VERB.replay.preview}</Button>
          <Button type="submit" name="intent" value="bury:preview" variant="secondary" disabled={pending}>{VERB.bury.preview}</Button>
        </div>
      )}
    </form>
  );
}
