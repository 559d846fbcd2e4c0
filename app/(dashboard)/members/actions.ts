"use server";
// Dashboard actions for members and invitations; the work (and the role check) is done by lib verbs.
import { revalidatePath } from "next/cache";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import { inviteMember } from "@/lib/invitations/invite-member";
import { withdrawInvitation } from "@/lib/invitations/withdraw-invitation";
import { changeMemberRole } from "@/lib/members/change-member-role";
import { removeMember } from "@/lib/members/remove-member";

const field = (form: FormData, name: string) => String(form.get(name) ?? "");

export async function inviteMemberAction(_: FormState, form: FormData): Promise<FormState<{ invitedEmail: string }>> {
  return runFormAction(async () => {
    const invitation = await inviteMember({ ctx: await requireDashboardCtx("manage_members"), input: { email: field(form, "email"), role: field(form, "role") } });
    revalidatePath("/members");
    return { ok: true, invitedEmail: invitation.email };
  }, form);
}

export async function withdrawInvitationAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    await withdrawInvitation({ ctx: await requireDashboardCtx("manage_members"), input: { id: field(form, "id") } });
    revalidatePath("/members");
    return { ok: true };
  }, form);
}

export async function changeMemberRoleAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    await changeMemberRole({ ctx: await requireDashboardCtx("manage_members"), input: { userId: field(form, "userId"), changes: { role: field(form, "role") } } });
    revalidatePath("/members");
    return { ok: true };
  }, form);
}

export async function removeMemberAction(_: FormState, form: FormData): Promise<FormState> {
  return runFormAction(async () => {
    await removeMember({ ctx: await requireDashboardCtx("manage_members"), input: { userId: field(form, "userId") } });
    revalidatePath("/members");
    return { ok: true };
  }, form);
}
