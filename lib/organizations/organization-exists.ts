import { eq } from "drizzle-orm";
import { getDb } from "@/db";
import { organizations } from "@/db/schema";

export async function organizationExists(id: string): Promise<boolean> {
  const [row] = await getDb().select({ id: organizations.id }).from(organizations).where(eq(organizations.id, id)).limit(1);
  return Boolean(row);
}
