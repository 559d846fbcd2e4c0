"use server";
// Organization settings: name, retention and the daily digest, through the same lib/organizations verb as the
// REST API; deleting the organization (owners only, after typing its name).
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { forgetCurrentSession, requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { digestChangesFromForm } from "@/lib/digest/digest-changes-from-form";
import { deleteOrganization } from "@/lib/organizations/delete-organization";
import { organizationChangesFromForm } from "@/lib/organizations/organization-changes-from-form";
import { updateOrganization } from "@/lib/organizations/update-organization";

export async function updateOrganizationAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    await updateOrganization({ ctx: await requireActionCtx(renderedFor, "change"), input: { changes: organizationChangesFromForm(form) } });
    revalidatePath("/settings");
    return { ok: true };
  }, form);
}

export async function updateDigestAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    await updateOrganization({ ctx: await requireActionCtx(renderedFor, "change"), input: { changes: digestChangesFromForm(form) } });
    revalidatePath("/settings");
    return { ok: true };
  }, form);
}

/** The session has moved to another organization of the user's (or to none: the overview sends them to create one). */
export async function deleteOrganizationAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    await deleteOrganization({ ctx: await requireActionCtx(renderedFor, "delete_organization"), input: { confirmName: form.get("confirmName") } });
    forgetCurrentSession();
    revalidatePath("/", "layout"); // the header, a layout the client would otherwise keep, names the new organization
    redirect("/overview");
  }, form);
}
