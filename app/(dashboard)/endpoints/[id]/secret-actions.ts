"use server";
// Rotate an endpoint's signing secret; the previous one keeps verifying for a grace period (24 h).
import { revalidatePath } from "next/cache";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { rotateEndpointSecret } from "@/lib/endpoints/rotate-endpoint-secret";
import { idOrNotFound } from "@/lib/ids";

export type RotateSecretState = FormState<{ secret: string; previousSecretValidUntil: string }>;

export async function rotateSecretAction(renderedFor: string, _: RotateSecretState, form: FormData): Promise<RotateSecretState> {
  return runFormAction(async () => {
    const id = idOrNotFound("ep", form.get("id"), "Endpoint");
    const given = String(form.get("secret") ?? "").trim();
    const rotated = await rotateEndpointSecret({ ctx: await requireActionCtx(renderedFor, "change"), input: { id, body: given ? { secret: given } : {} } });
    revalidatePath(`/endpoints/${id}`);
    return { ok: true, ...rotated };
  }, form);
}
