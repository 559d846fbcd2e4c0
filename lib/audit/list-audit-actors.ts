import { asc, eq } from "drizzle-orm";
import { apiKeys, memberships, users } from "@/db/schema";
import type { Ctx } from "@/lib/context";

export interface AuditActorOption {
  type: "user" | "api_key";
  id: string;
  label: string;
}

/**
 * Who the dashboard's actor filter offers by name: ctx's organization's members and its API keys
 * (revoked ones too: their entries stay). A former member is still found through an entry's actor link.
 */
export async function listAuditActors({ ctx }: { ctx: Ctx }): Promise<AuditActorOption[]> {
  const [members, keys] = await Promise.all([
    ctx.db
      .select({ id: users.id, label: users.email })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(eq(memberships.organizationId, ctx.organizationId))
      .orderBy(asc(users.email)),
    ctx.db.select({ id: apiKeys.id, label: apiKeys.name }).from(apiKeys).where(eq(apiKeys.organizationId, ctx.organizationId)).orderBy(asc(apiKeys.name)),
  ]);
  return [...members.map((m) => ({ type: "user" as const, ...m })), ...keys.map((k) => ({ type: "api_key" as const, ...k }))];
}
