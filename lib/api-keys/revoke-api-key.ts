import { and, eq, isNull } from "drizzle-orm";
import { apiKeys } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";

export async function revokeApiKey({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    const revoked = await tx.db
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(and(eq(apiKeys.id, input.id), eq(apiKeys.organizationId, ctx.organizationId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id, name: apiKeys.name });
    if (revoked.length === 0) throw new NotFoundError("API key");
    await recordAudit(tx, { action: "api_key.revoked", target: { type: "api_key", id: input.id }, details: { name: revoked[0]!.name } });
  });
}
