"use server";
// Endpoint settings: save, pause/resume, delete (after typing its name). Work is done by lib/endpoints verbs.
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { deleteEndpoint } from "@/lib/endpoints/delete-endpoint";
import { endpointChangesFromForm } from "@/lib/endpoints/endpoint-changes-from-form";
import { getEndpoint } from "@/lib/endpoints/get-endpoint";
import { updateEndpoint } from "@/lib/endpoints/update-endpoint";
import { idOrNotFound } from "@/lib/ids";

const idOf = (form: FormData) => idOrNotFound("ep", form.get("id"), "Endpoint");

export async function updateEndpointAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    await updateEndpoint({ ctx: await requireActionCtx(renderedFor, "change"), input: { id: idOf(form), changes: endpointChangesFromForm(form) } });
    revalidatePath(`/endpoints/${idOf(form)}`);
    return { ok: true };
  }, form);
}

export async function setPausedAction(renderedFor: string, form: FormData): Promise<void> {
  await updateEndpoint({ ctx: await requireActionCtx(renderedFor, "change"), input: { id: idOf(form), changes: { paused: form.get("paused") === "true" } } });
  revalidatePath(`/endpoints/${idOf(form)}`);
}

export async function deleteEndpointAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    const ctx = await requireActionCtx(renderedFor, "change");
    const endpoint = await getEndpoint({ ctx, input: { id: idOf(form) } });
    if (String(form.get("confirmName") ?? "").trim() !== endpoint.name) return { error: `Type the endpoint's name, “${endpoint.name}”, to delete it.` };
    await deleteEndpoint({ ctx, input: { id: endpoint.id } });
    revalidatePath("/endpoints");
    redirect("/endpoints");
  }, form);
}
