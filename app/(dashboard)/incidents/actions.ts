"use server";
// Dashboard actions for alert channels; the work is done by lib/alerts verbs, as the REST API's.
import { revalidatePath } from "next/cache";
import { createAlertChannel } from "@/lib/alerts/create-alert-channel";
import { deleteAlertChannel } from "@/lib/alerts/delete-alert-channel";
import { testAlertChannel } from "@/lib/alerts/test-alert-channel";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { idOrNotFound } from "@/lib/ids";

export type ChannelFormState = FormState<{ id: string; secret: string; tested: string }>;

export async function createAlertChannelAction(renderedFor: string, _: ChannelFormState, form: FormData): Promise<ChannelFormState> {
  return runFormAction(async () => {
    const ctx = await requireActionCtx(renderedFor, "change");
    const made = await createAlertChannel({ ctx, input: { name: String(form.get("name") ?? ""), type: String(form.get("type") ?? ""), target: String(form.get("target") ?? "") } });
    revalidatePath("/incidents");
    return { ok: true, id: made.id, ...(made.secret ? { secret: made.secret } : {}) };
  }, form);
}

export async function deleteAlertChannelAction(renderedFor: string, _: ChannelFormState, form: FormData): Promise<ChannelFormState> {
  return runFormAction(async () => {
    const ctx = await requireActionCtx(renderedFor, "change");
    await deleteAlertChannel({ ctx, input: { id: idOrNotFound("ach", form.get("id"), "Alert channel") } });
    revalidatePath("/incidents");
    return { ok: true };
  }, form);
}

export async function testAlertChannelAction(renderedFor: string, _: ChannelFormState, form: FormData): Promise<ChannelFormState> {
  return runFormAction(async () => {
    const ctx = await requireActionCtx(renderedFor, "change");
    const id = idOrNotFound("ach", form.get("id"), "Alert channel");
    await testAlertChannel({ ctx, input: { id } });
    return { ok: true, tested: id };
  }, form);
}
