import { asc, desc, eq, sql } from "drizzle-orm";
import { apiKeys } from "@/db/schema";
import type { Ctx } from "@/lib/context";

/** Keys of ctx's organization, prefix only: active ones first, newest first; revoked ones stay listed as such. */
export async function listApiKeys({ ctx }: { ctx: Ctx }) {
  return ctx.db
    .select({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, createdAt: apiKeys.createdAt, lastUsedAt: apiKeys.lastUsedAt, revokedAt: apiKeys.revokedAt })
    .from(apiKeys)
    .where(eq(apiKeys.organizationId, ctx.organizationId))
    .orderBy(asc(sql`${apiKeys.revokedAt} is not null`), desc(apiKeys.createdAt));
}
