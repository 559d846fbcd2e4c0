"use server";
// An endpoint's destinations from its page: add, change, pause or resume, delete. lib/destinations verbs do the work;
// after each change the endpoint's cached destinations are forgotten, as the REST API's routes do: ingest routes by them.
import { revalidatePath } from "next/cache";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { resumeEndpointDeliveries } from "@/lib/delivery/resume-endpoint-deliveries";
import { createDestination } from "@/lib/destinations/create-destination";
import { deleteDestination } from "@/lib/destinations/delete-destination";
import { destinationFieldsFromForm } from "@/lib/destinations/destination-form";
import { updateDestination } from "@/lib/destinations/update-destination";
import { forgetEndpoint } from "@/lib/endpoints/endpoint-cache";
import { idOrNotFound } from "@/lib/ids";

const endpointOf = (form: FormData) => idOrNotFound("ep", form.get("endpointId"), "Endpoint");
const destinationOf = (form: FormData) => ({ endpointId: endpointOf(form), id: idOrNotFound("dst", form.get("id"), "Destination") });

/** Runs one change as `form`'s user (a viewer: 403), then forgets the endpoint's routing and refreshes its page. */
function destinationChange(renderedFor: string, form: FormData, change: (ctx: Awaited<ReturnType<typeof requireActionCtx>>) => Promise<unknown>): Promise<FormState> {
  return runFormAction(async () => {
    await change(await requireActionCtx(renderedFor, "change"));
    forgetEndpoint(endpointOf(form));
    revalidatePath(`/endpoints/${endpointOf(form)}`);
    return { ok: true };
  }, form);
}

export async function createDestinationAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  return destinationChange(renderedFor, form, (ctx) => createDestination({ ctx, input: { endpointId: endpointOf(form), body: destinationFieldsFromForm(form) } }));
}

/** The edit form (every field it shows), or the list's Pause/Resume button (`pausedOnly`: that field alone). */
export async function updateDestinationAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  const changes = () => (form.get("pausedOnly") ? { paused: form.get("paused") === "on" } : destinationFieldsFromForm(form));
  return destinationChange(renderedFor, form, (ctx) => updateDestination({ ctx, input: { ...destinationOf(form), changes: changes() }, resume: resumeEndpointDeliveries }));
}

/** Only the confirming button sends intent=confirm: the list asks first. */
export async function deleteDestinationAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  if (form.get("intent") !== "confirm") return { error: "Confirm the deletion first: nothing was deleted." };
  return destinationChange(renderedFor, form, (ctx) => deleteDestination({ ctx, input: destinationOf(form) }));
}
