import { apiKeys } from "@/db/schema";
import { canGrant, isRole, memberBehind } from "@/lib/access/roles";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { ForbiddenError, ValidationError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { generateApiKey } from "./api-key-format";

/**
 * Creates a key for ctx's organization; the full key is returned here and never again (nor audited). It is
 * the member's behind the actor (a key made with a key is its creator's): it never outlives or outranks them.
 */
export async function createApiKey({ ctx, input }: { ctx: Ctx; input: { name?: string; role?: unknown } }) {
  const name = (input.name ?? "").trim() || "API key";
  if (name.length > 200) throw new ValidationError("Use at most 200 characters for the key's name.");
  const role = input.role ?? "admin";
  if (!isRole(role)) throw new ValidationError("A key's role is owner, admin or viewer.");
  if (!canGrant(ctx.actor, role)) throw new ForbiddenError(`Your role may not create ${role} keys: only an owner may create an owner key.`);
  const { key, prefix, keyHash } = generateApiKey();
  const row = await withTransaction(ctx, async (tx) => {
    const [inserted] = await tx.db
      .insert(apiKeys)
      .values({ id: newId("key"), organizationId: ctx.organizationId, name, role, prefix, keyHash, createdByUserId: memberBehind(ctx.actor) })
      .returning({ id: apiKeys.id, name: apiKeys.name, role: apiKeys.role, prefix: apiKeys.prefix, createdAt: apiKeys.createdAt });
    await recordAudit(tx, { action: "api_key.created", target: { type: "api_key", id: inserted!.id }, details: { name, role } });
    return inserted!;
  });
  return { ...row, apiKey: key };
}
