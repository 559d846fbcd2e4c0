"use server";
// Dashboard actions for members and invitations: owners only (manage_members); the work is done by lib verbs.
import { revalidatePath } from "next/cache";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import type { Ctx } from "@/lib/context";
import { inviteMember } from "@/lib/invitations/invite-member";
import { withdrawInvitation } from "@/lib/invitations/withdraw-invitation";
import { changeMemberRole } from "@/lib/members/change-member-role";
import { removeMember } from "@/lib/members/remove-member";

const field = (form: FormData, name: string) => String(form.get(name) ?? "");

/** Runs `work` as an owner of the current organization, then redraws the Members page; what work returns joins `ok`. */
function membersAction<T extends object>(form: FormData, work: (ctx: Ctx) => Promise<T | void>): Promise<FormState<T>> {
  return runFormAction(async () => {
    const more = await work(await requireDashboardCtx("manage_members"));
    revalidatePath("/members");
    return { ok: true, ...more } as FormState<T>;
  }, form);
}

export async function inviteMemberAction(_: FormState, form: FormData): Promise<FormState<{ invitedEmail: string }>> {
  return membersAction(form, async (ctx) => ({ invitedEmail: (await inviteMember({ ctx, input: { email: field(form, "email"), role: field(form, "role") } })).email }));
}

export async function withdrawInvitationAction(_: FormState, form: FormData): Promise<FormState> {
  return membersAction(form, async (ctx) => void (await withdrawInvitation({ ctx, input: { id: field(form, "id") } })));
}

export async function changeMemberRoleAction(_: FormState, form: FormData): Promise<FormState> {
  return membersAction(form, async (ctx) => void (await changeMemberRole({ ctx, input: { userId: field(form, "userId"), changes: { role: field(form, "role") } } })));
}

export async function removeMemberAction(_: FormState, form: FormData): Promise<FormState> {
  return membersAction(form, async (ctx) => void (await removeMember({ ctx, input: { userId: field(form, "userId") } })));
}
