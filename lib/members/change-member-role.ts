import { sql } from "drizzle-orm";
import { can } from "@/lib/access/roles";
import { revokeMemberKeys } from "@/lib/api-keys/revoke-member-keys";
import { recordAudit } from "@/lib/audit/record-audit";
import { withdrawInvitationsSentBy } from "@/lib/invitations/withdraw-invitations-sent-by";
import { withTransaction, type Ctx } from "@/lib/context";
import { ConflictError } from "@/lib/errors";
import { idOrNotFound } from "@/lib/ids";
import { parseInput } from "@/lib/validation";
import { listMembers, type MemberView } from "./list-members";
import { lockMembership } from "./lock-membership";
import { ChangeMemberRoleInput } from "./member-input";

/**
 * Gives a member of ctx's organization another role (at once: sessions read the role on every
 * request). The last owner cannot be demoted (409). The same role again changes and records nothing.
 * A demotion revokes the member's keys above the new role and, when they may no longer invite, withdraws
 * their pending invitations, in the same transaction.
 */
export async function changeMemberRole({ ctx, input }: { ctx: Ctx; input: { userId: unknown; changes: unknown } }): Promise<MemberView> {
  const userId = idOrNotFound("usr", input.userId, "Member");
  const { role } = parseInput(ChangeMemberRoleInput, input.changes);
  await withTransaction(ctx, async (ctx) => {
    const member = await lockMembership(ctx, userId);
    if (member.role === role) return;
    if (member.role === "owner" && member.owners <= 1) {
      throw new ConflictError("This is the organization's last owner: make another member owner first.");
    }
    await ctx.db.execute(sql`
      update memberships set role = ${role} where organization_id = ${ctx.organizationId} and user_id = ${userId}`);
    await recordAudit(ctx, { action: "member.role_changed", target: { type: "member", id: userId }, details: { from: member.role, to: role } });
    await revokeMemberKeys(ctx, { userId, newRole: role });
    const actor = { type: "user" as const, userId, role };
    if (!can(actor, "manage_members")) await withdrawInvitationsSentBy(ctx, { userId }, "inviter_demoted");
  });
  const members = await listMembers({ ctx });
  return members.find((member) => member.userId === userId)!;
}
