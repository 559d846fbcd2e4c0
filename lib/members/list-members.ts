import { asc, eq } from "drizzle-orm";
import { memberships, users } from "@/db/schema";
import type { Role } from "@/lib/access/roles";
import type { Ctx } from "@/lib/context";

export interface MemberView {
  userId: string;
  email: string;
  role: Role;
  joinedAt: string;
}

/**
 * The members of ctx's organization, oldest first. Every role may read who is in the organization
 * (the dashboard shows the list read-only to non-owners); changing it takes manage_members.
 */
export async function listMembers({ ctx }: { ctx: Ctx }): Promise<MemberView[]> {
  const rows = await ctx.db
    .select({ userId: memberships.userId, email: users.email, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, ctx.organizationId))
    .orderBy(asc(memberships.createdAt), asc(memberships.userId));
  return rows.map((row) => ({ ...row, joinedAt: row.joinedAt.toISOString() }));
}
