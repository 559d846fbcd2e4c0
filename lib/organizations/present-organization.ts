import type { organizations } from "@/db/schema";
import { presentDigestSettings } from "@/lib/digest/digest-settings-input";

/** The public organization object (API.md). */
export function presentOrganization(row: typeof organizations.$inferSelect) {
  return { id: row.id, name: row.name, retentionDays: row.retentionDays, digest: presentDigestSettings(row), createdAt: row.createdAt.toISOString() };
}
export type OrganizationView = ReturnType<typeof presentOrganization>;
