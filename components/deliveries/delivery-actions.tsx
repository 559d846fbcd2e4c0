"use client";

import { useActionState } from "react";
import type { DeliveryActionState } from "@/app/(dashboard)/deliveries/[id]/actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

type Action = (state: DeliveryActionState, form: FormData) => Promise<DeliveryActionState>;

const DONE = {
  replay: "Replay queued: the delivery is pending again and will be attempted at once (marked replay).",
  bury: "Buried: no more attempts. It is kept here and can be replayed.",
};

/** Replay and Bury for one delivery, with the outcome said at once. */
export function DeliveryActions({ action, id, status }: { action: Action; id: string; status: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} className="space-y-2">
      <input type="hidden" name="id" value={id} />
      <div className="flex gap-2">
        <Button type="submit" name="intent" value="replay" disabled={pending || status === "delivering"}>
          {pending ? "Working…" : "Replay"}
        </Button>
        <Button type="submit" name="intent" value="bury" variant="danger" disabled={pending || status === "dead"}>
          Bury
        </Button>
      </div>
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.ok && state.done ? <Alert tone="success">{DONE[state.done]}</Alert> : null}
    </form>
  );
}
