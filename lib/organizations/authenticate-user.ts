import { eq } from "drizzle-orm";
import { getDb } from "@/db";
import { memberships, users } from "@/db/schema";
import { hashPassword, verifyPassword } from "@/lib/crypto/password";

export interface AuthenticatedUser {
  userId: string;
  email: string;
  name: string | null;
  organizationId: string;
}

// Hashing even when the email is unknown keeps the answer time from telling which emails exist.
const decoyHash = hashPassword("decoy password that never matches");

/** Email + password → the user and their (first) organization, or null. */
export async function authenticateUser(email: string, password: string): Promise<AuthenticatedUser | null> {
  const [row] = await getDb()
    .select({ id: users.id, email: users.email, name: users.name, passwordHash: users.passwordHash, organizationId: memberships.organizationId })
    .from(users)
    .innerJoin(memberships, eq(memberships.userId, users.id))
    .where(eq(users.email, email.trim().toLowerCase()))
    .orderBy(memberships.createdAt)
    .limit(1);
  const ok = await verifyPassword(password, row?.passwordHash ?? (await decoyHash));
  if (!row || !ok) return null;
  return { userId: row.id, email: row.email, name: row.name, organizationId: row.organizationId };
}
