"use server";
// Several organizations per user: create another one (its owner), or switch the session to one of theirs.
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import { forgetCurrentSession, requireSignedInUser } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { switchSessionOrganization } from "@/lib/sessions/switch-session-organization";
import { createOrganization } from "@/lib/organizations/create-organization";

export async function createOrganizationAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    const { userId, sessionId } = await requireSignedInUser();
    const { organizationId } = await createOrganization({ input: { userId, changes: { name: form.get("name") ?? "" } } });
    await switchSessionOrganization({ sessionId, userId, organizationId });
    enterOrganization();
  }, form);
}

/** The header's switcher: only an organization the user belongs to (else 404); then its overview. */
export async function switchOrganizationAction(form: FormData): Promise<void> {
  const { userId, sessionId } = await requireSignedInUser();
  await switchSessionOrganization({ sessionId, userId, organizationId: String(form.get("organizationId") ?? "") });
  enterOrganization();
}

/** Every page and the header (a layout the client would otherwise keep) are drawn again for the new organization. */
function enterOrganization(): never {
  forgetCurrentSession();
  revalidatePath("/", "layout");
  redirect("/overview");
}
