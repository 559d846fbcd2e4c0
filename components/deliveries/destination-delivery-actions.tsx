"use client";

import { useActionState } from "react";
import type { DeliveryActionState } from "@/app/(dashboard)/deliveries/[id]/actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

type Action = (state: DeliveryActionState, form: FormData) => Promise<DeliveryActionState>;

/**
 * Replay and Bury of a delivery for one of its destinations (the others are left as they are). As for the whole
 * delivery: no Bury once delivered, disabled once dead; the outcome is said while the row still stands as it left it.
 */
export function DestinationDeliveryActions({ action, id, destinationId, name, status }: { action: Action; id: string; destinationId: string; name: string; status: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  const stillAsLeft = state.done === "bury" ? status === "dead" : status === "pending" || status === "delivering";
  return (
    <form action={formAction} className="space-y-1">
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="destinationId" value={destinationId} />
      <div className="flex gap-2">
        <Button type="submit" name="intent" value="replay" variant="secondary" disabled={pending || status === "delivering"} aria-label={`Replay to ${name}`}>Replay</Button>
        {status === "delivered" ? null : (
          <Button type="submit" name="intent" value="bury" variant="danger" disabled={pending || status === "dead"} aria-label={`Bury for ${name}`} title={status === "dead" ? "Already dead" : undefined}>
            Bury
          </Button>
        )}
      </div>
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.ok && stillAsLeft ? (
        <p role="status" className="text-xs text-emerald-800">{state.done === "bury" ? "Buried." : "Replay queued."}</p>
      ) : null}
    </form>
  );
}
