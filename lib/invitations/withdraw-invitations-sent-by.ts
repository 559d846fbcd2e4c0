import { and, eq, inArray, or, sql } from "drizzle-orm";
import { invitations } from "@/db/schema";
import type { Tx } from "@/db";
import { recordAudit } from "@/lib/audit/record-audit";
import type { Ctx } from "@/lib/context";
import { pendingInvitationsOf } from "./invitation-state";

export type WithdrawalReason = "inviter_removed" | "inviter_demoted" | "inviting_key_revoked";

/**
 * Withdraws the pending invitations of ctx's organization that a member, or some API keys, sent: called when
 * the sender loses the right to invite, so that no link outlives the authority that made it. Each is audited
 * (`member.invitation_withdrawn`, with the reason). Returns how many.
 */
export async function withdrawInvitationsSentBy(
  ctx: Ctx & { db: Tx },
  sender: { userId?: string; apiKeyIds?: string[] },
  reason: WithdrawalReason,
): Promise<number> {
  const apiKeyIds = sender.apiKeyIds ?? [];
  if (!sender.userId && apiKeyIds.length === 0) return 0;
  const sentBy = or(
    sender.userId ? eq(invitations.invitedByUserId, sender.userId) : undefined,
    apiKeyIds.length > 0 ? inArray(invitations.invitedByApiKeyId, apiKeyIds) : undefined,
  );
  const withdrawn = await ctx.db
    .update(invitations)
    .set({ withdrawnAt: sql`now()` })
    .where(and(pendingInvitationsOf(ctx.organizationId), sentBy))
    .returning({ id: invitations.id, email: invitations.email, role: invitations.role });
  for (const invitation of withdrawn) {
    await recordAudit(ctx, {
      action: "member.invitation_withdrawn",
      target: { type: "invitation", id: invitation.id },
      details: { email: invitation.email, role: invitation.role, reason },
    });
  }
  return withdrawn.length;
}
