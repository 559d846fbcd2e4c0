import { and, eq, isNull } from "drizzle-orm";
import { apiKeys } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";

export async function revokeApiKey({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<void> {
  const revoked = await ctx.db
    .update(apiKeys)
    .set({ revokedAt: new Date() })
    .where(and(eq(apiKeys.id, input.id), eq(apiKeys.organizationId, ctx.organizationId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (revoked.length === 0) throw new NotFoundError("API key");
}
