import { and, eq, isNull } from "drizzle-orm";
import { apiKeys } from "@/db/schema";
import { canGrant } from "@/lib/access/roles";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { ForbiddenError, NotFoundError } from "@/lib/errors";
import { withdrawInvitationsSentBy } from "@/lib/invitations/withdraw-invitations-sent-by";

/**
 * Revokes a key of ctx's organization. It takes the right to create a key of its role (API.md): an admin
 * cannot revoke an owner's key, the CLI's bootstrap key included. Invitations the key sent are withdrawn.
 */
export async function revokeApiKey({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const scope = and(eq(apiKeys.id, input.id), eq(apiKeys.organizationId, ctx.organizationId), isNull(apiKeys.revokedAt));
    const [key] = await tx.db.select({ role: apiKeys.role }).from(apiKeys).where(scope).for("update");
    if (!key) throw new NotFoundError("API key");
    if (!canGrant(ctx.actor, key.role)) throw new ForbiddenError(`Your role may not revoke ${key.role} keys: it takes the right to create one.`);
    const [revoked] = await tx.db.update(apiKeys).set({ revokedAt: new Date() }).where(scope).returning({ id: apiKeys.id, name: apiKeys.name });
    await recordAudit(tx, { action: "api_key.revoked", target: { type: "api_key", id: input.id }, details: { name: revoked!.name, role: key.role } });
    await withdrawInvitationsSentBy(tx, { apiKeyIds: [input.id] }, "inviting_key_revoked");
  });
}
