"use server";
// Dashboard actions for API keys; the work is done by lib/api-keys verbs.
import { revalidatePath } from "next/cache";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { revokeApiKey } from "@/lib/api-keys/revoke-api-key";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";

export type CreateApiKeyState = FormState<{ apiKey: string }>;

export async function createApiKeyAction(_: CreateApiKeyState, form: FormData): Promise<CreateApiKeyState> {
  return runFormAction(async () => {
    const ctx = await requireDashboardCtx();
    const { apiKey } = await createApiKey({ ctx, input: { name: String(form.get("name") ?? "") } });
    revalidatePath("/api-keys");
    return { ok: true, apiKey };
  }, form);
}

export async function revokeApiKeyAction(form: FormData): Promise<void> {
  const ctx = await requireDashboardCtx();
  await revokeApiKey({ ctx, input: { id: String(form.get("id")) } });
  revalidatePath("/api-keys");
}
