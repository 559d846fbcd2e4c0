import { and, asc, eq, isNull } from "drizzle-orm";
import { getDb, type DbOrTx } from "@/db";
import { memberships, organizations } from "@/db/schema";
import type { Role } from "@/lib/access/roles";

export interface UserOrganization {
  id: string;
  name: string;
  role: Role;
}

/** Every organization the user belongs to (none being deleted), by name: the header's switcher lists them. */
export async function listUserOrganizations({ input, db = getDb() }: { input: { userId: string }; db?: DbOrTx }): Promise<UserOrganization[]> {
  return db
    .select({ id: organizations.id, name: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, and(eq(organizations.id, memberships.organizationId), isNull(organizations.deletedAt)))
    .where(eq(memberships.userId, input.userId))
    .orderBy(asc(organizations.name), asc(organizations.id));
}
