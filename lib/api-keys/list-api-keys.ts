import { asc, desc, eq, sql } from "drizzle-orm";
import { apiKeys, users } from "@/db/schema";
import type { Ctx } from "@/lib/context";

/**
 * Keys of ctx's organization, prefix only, with their role and who created them (the member's email;
 * null for keys made by the CLI, or whose creator's account is gone): active ones first, newest first;
 * revoked ones stay listed as such.
 */
export async function listApiKeys({ ctx }: { ctx: Ctx }) {
  return ctx.db
    .select({
      id: apiKeys.id,
      name: apiKeys.name,
      prefix: apiKeys.prefix,
      role: apiKeys.role,
      createdByEmail: users.email,
      createdAt: apiKeys.createdAt,
      lastUsedAt: apiKeys.lastUsedAt,
      revokedAt: apiKeys.revokedAt,
    })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.createdByUserId))
    .where(eq(apiKeys.organizationId, ctx.organizationId))
    .orderBy(asc(sql`${apiKeys.revokedAt} is not null`), desc(apiKeys.createdAt));
}
