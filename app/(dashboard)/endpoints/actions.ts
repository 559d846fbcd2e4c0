"use server";
// Dashboard actions for endpoints; the work is done by lib/endpoints verbs.
import { revalidatePath } from "next/cache";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { endpointInputFromForm } from "@/lib/endpoints/endpoint-form-data";

export type CreateEndpointState = FormState<{ id: string; ingestUrl: string; secret: string; awaitingSecret: boolean }>;

export async function createEndpointAction(renderedFor: string, _: CreateEndpointState, form: FormData): Promise<CreateEndpointState> {
  return runFormAction(async () => {
    const ctx = await requireActionCtx(renderedFor, "change");
    const endpoint = await createEndpoint({ ctx, input: endpointInputFromForm(form) });
    revalidatePath("/endpoints");
    return { ok: true, id: endpoint.id, ingestUrl: endpoint.ingestUrl, secret: endpoint.secret, awaitingSecret: endpoint.awaitingSecret };
  }, form);
}
