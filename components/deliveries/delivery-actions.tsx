"use client";

import { useActionState, useState } from "react";
import type { DeliveryActionState } from "@/app/(dashboard)/deliveries/[id]/actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

type Action = (state: DeliveryActionState, form: FormData) => Promise<DeliveryActionState>;

const DONE = {
  replay: "Replay queued: the delivery is pending again and will be attempted at once (marked replay).",
  replayPaused: "Replay queued: the delivery is pending again; its endpoint is paused, so it is sent once deliveries resume.",
  bury: "Buried: no more attempts. It is kept here and can be replayed.",
};

/**
 * Replay and Bury for one delivery, with the outcome said at once. Bury is offered only where it can
 * act (not on a delivered delivery, nor a filtered one no destination took), disabled on a dead one.
 * The outcome is said until the delivery moves on (an attempt is made; the page refreshes itself while
 * it waits), then the page says the rest.
 */
export function DeliveryActions({ action, id, status, attemptCount, paused }: { action: Action; id: string; status: string; attemptCount: number; paused: boolean }) {
  const [state, formAction, pending] = useActionState(action, {});
  // Where the delivery stood when the outcome was first shown (kept from that render: React's pattern
  // for state derived from earlier props), since an attempt may already be under way by then.
  const standing = `${status}:${attemptCount}`;
  const [shownAt, setShownAt] = useState<{ state: DeliveryActionState; standing: string } | null>(null);
  if (state.ok && shownAt?.state !== state) setShownAt({ state, standing });
  // And never once settled otherwise: the worker may have delivered a replay before its outcome was first shown.
  const stillAsLeft = state.done === "bury" ? status === "dead" : status === "pending" || status === "delivering";
  const current = state.ok && state.done && stillAsLeft && (shownAt?.state !== state || shownAt.standing === standing);
  const done = current ? (state.done === "replay" && paused ? "replayPaused" : state.done!) : null;
  return (
    <form action={formAction} className="space-y-2">
      <input type="hidden" name="id" value={id} />
      <div className="flex gap-2">
        <Button type="submit" name="intent" value="replay" disabled={pending || status === "delivering"}>
          {pending ? "Working…" : "Replay"}
        </Button>
        {status === "delivered" || status === "filtered" ? null : (
          <Button type="submit" name="intent" value="bury" variant="danger" disabled={pending || status === "dead"} title={status === "dead" ? "Already dead" : undefined}>
            Bury
          </Button>
        )}
      </div>
      {state.error ? <Alert>{state.error}</Alert> : null}
      {done ? <Alert tone="success">{DONE[done]}</Alert> : null}
      {state.ok && state.done === "replay" && state.status === "filtered" && status === "filtered" ? (
        <Alert tone="warning">Still no destination’s filter matches this request: nothing was sent.</Alert>
      ) : null}
    </form>
  );
}
