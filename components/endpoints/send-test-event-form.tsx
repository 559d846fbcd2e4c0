"use client";

import Link from "next/link";
import { useActionState } from "react";
import type { TestEventState } from "@/app/(dashboard)/endpoints/[id]/test-event-actions";
import { Alert } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";

type Action = (state: TestEventState, form: FormData) => Promise<TestEventState>;

/** "Send test event": an event type (inbox.test unless named), then a link to the delivery it made. */
export function SendTestEventForm({ action, endpointId }: { action: Action; endpointId: string }) {
  const [state, formAction, pending] = useActionState(action, {});
  return (
    <form action={formAction} aria-label="Send a test event" className="space-y-3">
      <input type="hidden" name="id" value={endpointId} />
      {state.error ? <Alert>{state.error}</Alert> : null}
      {state.ok && state.deliveryId ? (
        <Alert tone="success">
          Test event sent: <Link href={`/deliveries/${state.deliveryId}`} className="font-mono underline" data-testid="test-event-delivery">{state.deliveryId}</Link>
        </Alert>
      ) : null}
      <div className="flex flex-wrap items-end gap-3">
        <div>
          <label htmlFor="test-event-type" className="block text-sm font-medium text-slate-700">Event type</label>
          <input id="test-event-type" name="eventType" placeholder="inbox.test" defaultValue={state.values?.eventType}
            className="mt-1 block w-56 rounded-md border-0 px-2.5 py-1.5 text-sm ring-1 ring-slate-300 focus:ring-2 focus:ring-indigo-600" />
        </div>
        <Button type="submit" variant="secondary" disabled={pending}>Send test event</Button>
      </div>
      <p className="text-xs text-slate-600">Goes to every destination whose filter takes it, signed and retried like a received webhook, and is marked “test” in the deliveries.</p>
    </form>
  );
}
