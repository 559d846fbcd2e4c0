"use server";
// Rotate an endpoint's signing secret; the previous one keeps verifying for a grace period (24 h).
import { revalidatePath } from "next/cache";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { rotateEndpointSecret } from "@/lib/endpoints/rotate-endpoint-secret";
import { idOrNotFound } from "@/lib/ids";

export type RotateSecretState = FormState<{ secret: string; previousSecretValidUntil: string }>;

export async function rotateSecretAction(_: RotateSecretState, form: FormData): Promise<RotateSecretState> {
  return runFormAction(async () => {
    const id = idOrNotFound("ep", form.get("id"), "Endpoint");
    const given = String(form.get("secret") ?? "").trim();
    const rotated = await rotateEndpointSecret({ ctx: await requireDashboardCtx("change"), input: { id, body: given ? { secret: given } : {} } });
    revalidatePath(`/endpoints/${id}`);
    return { ok: true, ...rotated };
  }, form);
}
