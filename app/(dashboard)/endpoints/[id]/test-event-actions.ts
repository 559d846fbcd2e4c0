"use server";
// "Send test event": a synthetic delivery through the endpoint's destinations (lib/ingest/send-test-event.ts).
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { idOrNotFound } from "@/lib/ids";
import { sendTestEvent } from "@/lib/ingest/send-test-event";

export type TestEventState = FormState<{ deliveryId: string }>;

export async function sendTestEventAction(renderedFor: string, _: TestEventState, form: FormData): Promise<TestEventState> {
  return runFormAction(async () => {
    const endpointId = idOrNotFound("ep", form.get("id"), "Endpoint");
    const eventType = String(form.get("eventType") ?? "").trim();
    const { id } = await sendTestEvent({ ctx: await requireActionCtx(renderedFor, "change"), input: { endpointId, body: eventType ? { eventType } : {} } });
    return { ok: true, deliveryId: id };
  }, form);
}
