import { sql } from "drizzle-orm";
import type { Role } from "@/lib/access/roles";
import type { Ctx } from "@/lib/context";
import type { Tx } from "@/db";
import { NotFoundError } from "@/lib/errors";

/**
 * Locks, FOR UPDATE in the caller's transaction, the organization's owner memberships (in user id
 * order, so two callers never deadlock) and then the member being changed; answers their role and the
 * owner count. Two owners demoting or removing each other at once take turns here, and the second sees
 * the first's change: the last owner cannot be lost to a race.
 */
export async function lockMembership(ctx: Ctx & { db: Tx }, userId: string): Promise<{ role: Role; owners: number }> {
  const owners = await ctx.db.execute<{ user_id: string }>(sql`
    select user_id from memberships
    where organization_id = ${ctx.organizationId} and role = 'owner'
    order by user_id
    for update`);
  const [member] = await ctx.db.execute<{ role: Role }>(sql`
    select role from memberships where organization_id = ${ctx.organizationId} and user_id = ${userId} for update`);
  if (!member) throw new NotFoundError("Member");
  return { role: member.role, owners: owners.length };
}
