import { and, desc, eq, isNull } from "drizzle-orm";
import { apiKeys } from "@/db/schema";
import type { Ctx } from "@/lib/context";

/** Active keys of ctx's organization, prefix only. */
export async function listApiKeys({ ctx }: { ctx: Ctx }) {
  return ctx.db
    .select({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, createdAt: apiKeys.createdAt, lastUsedAt: apiKeys.lastUsedAt })
    .from(apiKeys)
    .where(and(eq(apiKeys.organizationId, ctx.organizationId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt));
}
