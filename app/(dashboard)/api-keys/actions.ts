"use server";
// Dashboard actions for API keys; the work is done by lib/api-keys verbs.
import { revalidatePath } from "next/cache";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";

export type CreateApiKeyState = FormState<{ id: string; apiKey: string }>;
export type RevokeApiKeyState = FormState<{ revokedId: string }>;

export async function createApiKeyAction(renderedFor: string, _: CreateApiKeyState, form: FormData): Promise<CreateApiKeyState> {
  return runFormAction(async () => {
    const ctx = await requireActionCtx(renderedFor, "change");
    const { id, apiKey } = await createApiKey({ ctx, input: { name: String(form.get("name") ?? ""), role: form.get("role") ?? "admin" } });
    revalidatePath("/api-keys");
    return { ok: true, id, apiKey };
  }, form);
}

export async function revokeApiKeyAction(renderedFor: string, _: RevokeApiKeyState, form: FormData): Promise<RevokeApiKeyState> {
  return runFormAction(async () => {
    const ctx = await requireActionCtx(renderedFor, "change");
    const id = String(form.get("id") ?? "");
    await revokeApiKey({ ctx, input: { id } });
    revalidatePath("/api-keys");
    return { ok: true, revokedId: id };
  }, form);
}
