"use server";
// Replay or bury one delivery from its page, for every destination or the one named (destinationId); the work is
// done by the same verbs as the REST API.
import { revalidatePath } from "next/cache";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { buryDelivery } from "@/lib/delivery/bury-delivery";
import { replayDelivery } from "@/lib/delivery/replay-delivery";
import { idOrNotFound } from "@/lib/ids";

export type DeliveryActionState = FormState<{ done: "replay" | "bury"; at: number; status: "pending" | "filtered" | "dead" }>;

export async function deliveryAction(renderedFor: string, _: DeliveryActionState, form: FormData): Promise<DeliveryActionState> {
  return runFormAction(async () => {
    const ctx = await requireActionCtx(renderedFor, "change");
    const id = idOrNotFound("dlv", form.get("id"), "Delivery");
    const destinationId = form.get("destinationId") ? idOrNotFound("dst", form.get("destinationId"), "Destination") : undefined;
    const intent = form.get("intent") === "bury" ? "bury" : "replay";
    // The dashboard never buries a delivered delivery (see buryDelivery's keepDelivered).
    const { status } = await (intent === "bury" ? buryDelivery({ ctx, input: { id, destinationId, keepDelivered: true } }) : replayDelivery({ ctx, input: { id, destinationId } }));
    revalidatePath(`/deliveries/${id}`);
    return { ok: true, done: intent, at: Date.now(), status };
  }, form);
}
