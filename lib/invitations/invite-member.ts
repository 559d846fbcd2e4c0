import { sql } from "drizzle-orm";
import { invitations } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { ConflictError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { queueMail } from "@/lib/mail/queue-mail";
import { parseInput } from "@/lib/validation";
import { InviteMemberInput } from "./invitation-input";
import { requireInvitationMailAllowed } from "./invitation-mail-bound";
import { renderInvitationMail } from "./invitation-mail";
import { INVITATION_VALID_DAYS, invitationUrl, newInvitationToken } from "./invitation-token";
import { presentInvitation, type InvitationView } from "./present-invitation";

/**
 * Invites `email` into ctx's organization with `role`: the invitation row, its mail (queued through the
 * send-mail job) and the `member.invited` audit entry commit together. An address that is already a
 * member, or already holds a pending invitation, is refused (409): withdraw the old one to send anew.
 * Past the day's bound on invitation mail (per address, per organization) it is 429.
 */
export async function inviteMember({ ctx, input }: { ctx: Ctx; input: unknown }): Promise<InvitationView> {
  const { email, role } = parseInput(InviteMemberInput, input);
  const { token, tokenHash } = newInvitationToken();
  return withTransaction(ctx, async (ctx) => {
    // Two invitations of one address at once would both pass the checks below: one at a time per address.
    await ctx.db.execute(sql`select pg_advisory_xact_lock(hashtext('invitation'), hashtext(${`${ctx.organizationId}:${email}`}))`);
    const [existing] = await ctx.db.execute<{ member: boolean; pending: boolean; organization_name: string; inviter_email: string | null }>(sql`
      select
        exists (select 1 from memberships m join users u on u.id = m.user_id
                where m.organization_id = ${ctx.organizationId} and u.email = ${email}) as member,
        exists (select 1 from invitations i
                where i.organization_id = ${ctx.organizationId} and i.email = ${email}
                  and i.accepted_at is null and i.withdrawn_at is null and i.expires_at > now()) as pending,
        (select name from organizations where id = ${ctx.organizationId}) as organization_name,
        (select email from users where id = ${ctx.actor.type === "user" ? ctx.actor.userId : null}) as inviter_email`);
    if (existing!.member) throw new ConflictError(`${email} is already a member of this organization.`);
    if (existing!.pending) throw new ConflictError(`${email} already has a pending invitation; withdraw it to send a new one.`);
    await requireInvitationMailAllowed(ctx.db, { organizationId: ctx.organizationId, email });
    const [row] = await ctx.db
      .insert(invitations)
      .values({
        id: newId("inv"),
        organizationId: ctx.organizationId,
        email,
        role,
        tokenHash,
        invitedByUserId: ctx.actor.type === "user" ? ctx.actor.userId : null,
        invitedByApiKeyId: ctx.actor.type === "api_key" ? ctx.actor.apiKeyId : null,
        expiresAt: sql`now() + make_interval(days => ${INVITATION_VALID_DAYS})`,
      })
      .returning();
    const mail = renderInvitationMail({
      organizationName: existing!.organization_name,
      role,
      inviterEmail: existing!.inviter_email,
      validDays: INVITATION_VALID_DAYS,
    });
    await queueMail({ ctx, input: { to: [email], ...mail, secretLink: invitationUrl(token) } });
    await recordAudit(ctx, { action: "member.invited", target: { type: "invitation", id: row!.id }, details: { email, role } });
    return presentInvitation(row!);
  });
}
