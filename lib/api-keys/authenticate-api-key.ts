import { and, eq, isNull, lt, or } from "drizzle-orm";
import { getDb } from "@/db";
import { apiKeys, organizations } from "@/db/schema";
import type { Role } from "@/lib/access/roles";
import { hashApiKey } from "./api-key-format";

/** A bearer key → its organization, or null for an unknown or revoked key, or one of a deleted organization. */
export async function authenticateApiKey(key: string): Promise<{ organizationId: string; apiKeyId: string; role: Role; createdByUserId: string | null } | null> {
  if (!key.startsWith("inbox_sk_") || key.length > 100) return null;
  const db = getDb();
  const [row] = await db
    .select({ id: apiKeys.id, organizationId: apiKeys.organizationId, role: apiKeys.role, createdByUserId: apiKeys.createdByUserId })
    .from(apiKeys)
    // A key made while its organization was being deleted (after the delete removed the others) opens nothing either.
    .innerJoin(organizations, and(eq(organizations.id, apiKeys.organizationId), isNull(organizations.deletedAt)))
    .where(and(eq(apiKeys.keyHash, hashApiKey(key)), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!row) return null;
  // Marking use is informational; at most once a minute per key, and never on the request's path.
  const aMinuteAgo = new Date(Date.now() - 60_000);
  void db
    .update(apiKeys)
    .set({ lastUsedAt: new Date() })
    .where(and(eq(apiKeys.id, row.id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, aMinuteAgo))))
    .catch(() => {});
  return { organizationId: row.organizationId, apiKeyId: row.id, role: row.role, createdByUserId: row.createdByUserId };
}
