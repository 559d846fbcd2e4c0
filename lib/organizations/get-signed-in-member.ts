import { and, eq } from "drizzle-orm";
import { memberships, organizations, users } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";

export interface SignedInMember {
  organizationName: string;
  email: string;
  name: string | null;
}

/** Which organization the signed-in user is in, and who they are: for the dashboard's header. */
export async function getSignedInMember({ ctx, input }: { ctx: Ctx; input: { userId: string } }): Promise<SignedInMember> {
  const [row] = await ctx.db
    .select({ organizationName: organizations.name, email: users.email, name: users.name })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, ctx.organizationId), eq(memberships.userId, input.userId)))
    .limit(1);
  if (!row) throw new NotFoundError("Membership");
  return row;
}
