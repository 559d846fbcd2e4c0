"use server";
// Rotate (or set, for an endpoint awaiting it) an endpoint's signing secret; the previous one keeps verifying for a
// grace period (24 h). Says what the new secret re-admitted from the quarantine.
import { revalidatePath } from "next/cache";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { rotateEndpointSecret } from "@/lib/endpoints/rotate-endpoint-secret";
import { idOrNotFound } from "@/lib/ids";
import { reverifyQuarantined } from "@/lib/quarantine/reverify-quarantined";

export type RotateSecretState = FormState<{ secret: string; previousSecretValidUntil: string | null; readmitted: number; duplicates: number }>;

export async function rotateSecretAction(renderedFor: string, _: RotateSecretState, form: FormData): Promise<RotateSecretState> {
  return runFormAction(async () => {
    const id = idOrNotFound("ep", form.get("id"), "Endpoint");
    const given = String(form.get("secret") ?? "").trim();
    const ctx = await requireActionCtx(renderedFor, "change");
    const rotated = await rotateEndpointSecret({ ctx, input: { id, body: given ? { secret: given } : {}, reverifyNow: true } });
    // What the new secret re-admitted from the quarantine, said here (the job's second pass takes what came meanwhile).
    const { count, duplicates } = await reverifyQuarantined({ ctx, input: { endpointId: id } });
    revalidatePath(`/endpoints/${id}`);
    return { ok: true, ...rotated, readmitted: count, duplicates: duplicates ?? 0 };
  }, form);
}
