import { and, eq, isNull } from "drizzle-orm";
import { getDb } from "@/db";
import { organizations } from "@/db/schema";

/** A live organization (not being deleted) of that id: the CLI makes keys for no other. */
export async function organizationExists(id: string): Promise<boolean> {
  const [row] = await getDb().select({ id: organizations.id }).from(organizations).where(and(eq(organizations.id, id), isNull(organizations.deletedAt))).limit(1);
  return Boolean(row);
}
