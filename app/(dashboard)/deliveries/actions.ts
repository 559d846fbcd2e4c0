"use server";
// Bulk replay / bury of the deliveries a filter names: a dry run first (the count), then the act.
import { revalidatePath } from "next/cache";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { buryDeliveries } from "@/lib/delivery/bury-deliveries";
import { bulkFilterFromForm } from "@/lib/delivery/presentation/deliveries-page-query";
import { replayDeliveries } from "@/lib/delivery/replay-deliveries";

export type BulkKind = "replay" | "bury";
export type BulkState = FormState<{ kind: BulkKind; count: number; done: boolean }>;

/** `intent` is "replay:preview", "replay:confirm", "bury:preview" or "bury:confirm". */
export async function bulkDeliveriesAction(renderedFor: string, _: BulkState, form: FormData): Promise<BulkState> {
  return runFormAction(async () => {
    const ctx = await requireActionCtx(renderedFor, "change");
    const [kind, step] = String(form.get("intent") ?? "").split(":") as [BulkKind, string];
    const done = step === "confirm";
    const input = { filter: bulkFilterFromForm(form), dryRun: !done };
    // The dashboard never buries a delivered delivery: it was handed on, there is nothing to stop.
    const { count } = kind === "bury" ? await buryDeliveries({ ctx, input: { ...input, keepDelivered: true } }) : await replayDeliveries({ ctx, input });
    if (done) revalidatePath("/deliveries");
    return { ok: true, kind, count, done };
  }, form);
}
