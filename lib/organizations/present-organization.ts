import type { organizations } from "@/db/schema";

/** The public organization object (API.md). */
export function presentOrganization(row: typeof organizations.$inferSelect) {
  return { id: row.id, name: row.name, retentionDays: row.retentionDays, createdAt: row.createdAt.toISOString() };
}
export type OrganizationView = ReturnType<typeof presentOrganization>;
