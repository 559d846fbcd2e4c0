import { sql } from "drizzle-orm";
import { revokeMemberKeys } from "@/lib/api-keys/revoke-member-keys";
import { recordAudit } from "@/lib/audit/record-audit";
import { withdrawInvitationsSentBy } from "@/lib/invitations/withdraw-invitations-sent-by";
import { endMemberSessions } from "@/lib/sessions/end-member-sessions";
import { withTransaction, type Ctx } from "@/lib/context";
import { ConflictError } from "@/lib/errors";
import { idOrNotFound } from "@/lib/ids";
import { lockMembership } from "./lock-membership";

/**
 * Removes a member from ctx's organization: the membership and their sessions working in it go in one
 * transaction, with their API keys (revoked) and pending invitations (withdrawn), all audited (their account
 * and other organizations stay). The last owner cannot be removed (409).
 */
export async function removeMember({ ctx, input }: { ctx: Ctx; input: { userId: unknown } }): Promise<void> {
  const userId = idOrNotFound("usr", input.userId, "Member");
  await withTransaction(ctx, async (ctx) => {
    const member = await lockMembership(ctx, userId);
    if (member.role === "owner" && member.owners <= 1) {
      throw new ConflictError("This is the organization's last owner: make another member owner first.");
    }
    await ctx.db.execute(sql`delete from memberships where organization_id = ${ctx.organizationId} and user_id = ${userId}`);
    await endMemberSessions(ctx.db, { userId, organizationId: ctx.organizationId });
    await recordAudit(ctx, { action: "member.removed", target: { type: "member", id: userId }, details: { role: member.role } });
    await revokeMemberKeys(ctx, { userId, newRole: null });
    await withdrawInvitationsSentBy(ctx, { userId }, "inviter_removed");
  });
}
