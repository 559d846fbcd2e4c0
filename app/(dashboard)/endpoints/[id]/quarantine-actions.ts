"use server";
// Re-verify an endpoint's quarantine: a dry run first (the count), then the act.
import { revalidatePath } from "next/cache";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { idOrNotFound } from "@/lib/ids";
import { reverifyQuarantined } from "@/lib/quarantine/reverify-quarantined";

export type ReverifyState = FormState<{ count: number; duplicates: number; done: boolean }>;

/** `intent` is "preview" (dry run) or "confirm". */
export async function reverifyQuarantineAction(renderedFor: string, _: ReverifyState, form: FormData): Promise<ReverifyState> {
  return runFormAction(async () => {
    const endpointId = idOrNotFound("ep", form.get("id"), "Endpoint");
    const done = form.get("intent") === "confirm";
    const { count, duplicates } = await reverifyQuarantined({ ctx: await requireActionCtx(renderedFor, "change"), input: { endpointId, dryRun: !done } });
    if (done) revalidatePath(`/endpoints/${endpointId}`);
    return { ok: true, count, duplicates: duplicates ?? 0, done };
  }, form);
}
