import { and, eq, inArray, isNull, sql } from "drizzle-orm";
import { apiKeys } from "@/db/schema";
import type { Tx } from "@/db";
import { rolesAbove, type Role } from "@/lib/access/roles";
import { recordAudit } from "@/lib/audit/record-audit";
import type { Ctx } from "@/lib/context";
import { withdrawInvitationsSentBy } from "@/lib/invitations/withdraw-invitations-sent-by";

/**
 * A key never outranks its member (API.md): when a member is removed (`newRole` null) all their keys in ctx's
 * organization are revoked; when demoted, those of a role the new one may not hand out. Revoked, not capped at
 * authentication: a key whose power silently shrank would fail in ways its user cannot see, where a revoked
 * key says so, is listed as revoked, and is audited (`api_key.revoked`, with the reason). Invitations the
 * revoked keys sent are withdrawn with them. In the caller's transaction; returns the revoked keys' ids.
 */
export async function revokeMemberKeys(ctx: Ctx & { db: Tx }, input: { userId: string; newRole: Role | null }): Promise<string[]> {
  const roles = input.newRole ? rolesAbove(input.newRole) : null;
  if (roles && roles.length === 0) return [];
  const revoked = await ctx.db
    .update(apiKeys)
    .set({ revokedAt: sql`now()` })
    .where(
      and(
        eq(apiKeys.organizationId, ctx.organizationId),
        eq(apiKeys.createdByUserId, input.userId),
        isNull(apiKeys.revokedAt),
        roles ? inArray(apiKeys.role, roles) : undefined,
      ),
    )
    .returning({ id: apiKeys.id, name: apiKeys.name, role: apiKeys.role });
  const reason = input.newRole ? "member_demoted" : "member_removed";
  for (const key of revoked) {
    await recordAudit(ctx, {
      action: "api_key.revoked",
      target: { type: "api_key", id: key.id },
      details: { name: key.name, role: key.role, reason, memberId: input.userId },
    });
  }
  await withdrawInvitationsSentBy(ctx, { apiKeyIds: revoked.map((key) => key.id) }, "inviting_key_revoked");
  return revoked.map((key) => key.id);
}
