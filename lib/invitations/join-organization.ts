import { sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { recordAudit } from "@/lib/audit/record-audit";
import { createCtx } from "@/lib/context";
import { ConflictError } from "@/lib/errors";
import type { FoundInvitation } from "./invitation-state";

/**
 * The joining itself, inside the accepting transaction (the invitation already locked and pending): the
 * membership with the invited role, the invitation marked accepted, and `member.joined` audited.
 */
export async function joinOrganization(tx: Tx, input: { invitation: FoundInvitation; userId: string; ip?: string | null }): Promise<void> {
  const { invitation, userId } = input;
  const inserted = await tx.execute(sql`
    insert into memberships (organization_id, user_id, role) values (${invitation.organizationId}, ${userId}, ${invitation.role})
    on conflict (organization_id, user_id) do nothing
    returning user_id`);
  if (inserted.length === 0) throw new ConflictError(`You are already a member of ${invitation.organizationName}.`);
  await tx.execute(sql`update invitations set accepted_at = now(), accepted_by_user_id = ${userId} where id = ${invitation.id}`);
  const ctx = { ...createCtx(invitation.organizationId, { type: "user", userId, role: invitation.role }, tx, input.ip ?? null), db: tx };
  await recordAudit(ctx, {
    action: "member.joined",
    target: { type: "member", id: userId },
    details: { role: invitation.role, invitationId: invitation.id },
  });
}
