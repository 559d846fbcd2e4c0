"use server";
// An endpoint's destinations from its page: add, change, pause or resume, delete (lib/endpoints/endpoint-destinations.ts).
import { revalidatePath } from "next/cache";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { destinationFieldsFromForm, destinationChangesFromForm } from "@/lib/destinations/destination-form";
import { addEndpointDestination, changeEndpointDestination, removeEndpointDestination } from "@/lib/endpoints/endpoint-destinations";
import { idOrNotFound } from "@/lib/ids";

const endpointOf = (form: FormData) => idOrNotFound("ep", form.get("endpointId"), "Endpoint");
const destinationOf = (form: FormData) => ({ endpointId: endpointOf(form), id: idOrNotFound("dst", form.get("id"), "Destination") });

/** Runs one change as `form`'s user (a viewer: 403), then refreshes the endpoint's page. */
const destinationChange = (renderedFor: string, form: FormData, change: (ctx: Awaited<ReturnType<typeof requireActionCtx>>) => Promise<unknown>) =>
  runFormAction(async () => {
    await change(await requireActionCtx(renderedFor, "change"));
    revalidatePath(`/endpoints/${endpointOf(form)}`);
    return { ok: true };
  }, form);

export async function createDestinationAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  return destinationChange(renderedFor, form, (ctx) => addEndpointDestination({ ctx, input: { endpointId: endpointOf(form), body: destinationFieldsFromForm(form) } }));
}

export async function updateDestinationAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  return destinationChange(renderedFor, form, (ctx) => changeEndpointDestination({ ctx, input: { ...destinationOf(form), changes: destinationChangesFromForm(form) } }));
}

/** Only the confirming button sends intent=confirm: the list asks first. */
export async function deleteDestinationAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  if (form.get("intent") !== "confirm") return { error: "Confirm the deletion first: nothing was deleted." };
  return destinationChange(renderedFor, form, (ctx) => removeEndpointDestination({ ctx, input: destinationOf(form) }));
}
