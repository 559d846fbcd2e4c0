"use server";
// Dashboard actions for members and invitations: owners only (manage_members); the work is done by lib verbs.
import { revalidatePath } from "next/cache";
import { requireActionCtx } from "@/lib/auth/dashboard-ctx";
import { runFormAction, type FormState } from "@/lib/auth/form-action";
import type { Ctx } from "@/lib/context";
import { inviteMember } from "@/lib/invitations/invite-member";
import { withdrawInvitation } from "@/lib/invitations/withdraw-invitation";
import { changeMemberRole } from "@/lib/members/change-member-role";
import { removeMember } from "@/lib/members/remove-member";

const field = (form: FormData, name: string) => String(form.get(name) ?? "");

/** Runs `work` as an owner of the organization the page was rendered for (still the session's), then redraws the Members page; what work returns joins `ok`. */
function membersAction<T extends object>(renderedFor: string, form: FormData, work: (ctx: Ctx) => Promise<T | void>): Promise<FormState<T>> {
  return runFormAction(async () => {
    const more = await work(await requireActionCtx(renderedFor, "manage_members"));
    revalidatePath("/members");
    return { ok: true, ...more } as FormState<T>;
  }, form);
}

export async function inviteMemberAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState<{ invitedEmail: string }>> {
  return membersAction(renderedFor, form, async (ctx) => ({ invitedEmail: (await inviteMember({ ctx, input: { email: field(form, "email"), role: field(form, "role") } })).email }));
}

export async function withdrawInvitationAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  return membersAction(renderedFor, form, async (ctx) => void (await withdrawInvitation({ ctx, input: { id: field(form, "id") } })));
}

export async function changeMemberRoleAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  return membersAction(renderedFor, form, async (ctx) => void (await changeMemberRole({ ctx, input: { userId: field(form, "userId"), changes: { role: field(form, "role") } } })));
}

export async function removeMemberAction(renderedFor: string, _: FormState, form: FormData): Promise<FormState> {
  return membersAction(renderedFor, form, async (ctx) => void (await removeMember({ ctx, input: { userId: field(form, "userId") } })));
}
