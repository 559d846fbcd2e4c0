"use server";
// Organization settings: name and retention, through the same lib/organizations verb as the REST API.
import { revalidatePath } from "next/cache";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { organizationChangesFromForm } from "@/lib/organizations/organization-changes-from-form";
import { updateOrganization } from "@/lib/organizations/update-organization";

export async function updateOrganizationAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    await updateOrganization({ ctx: await requireDashboardCtx(), input: { changes: organizationChangesFromForm(form) } });
    revalidatePath("/settings");
    return { ok: true };
  }, form);
}
