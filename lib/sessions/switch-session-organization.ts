import { sql } from "drizzle-orm";
import { getDb, type DbOrTx } from "@/db";
import { NotFoundError } from "@/lib/errors";

/**
 * Points a session at another organization of its user: one statement that changes the session's row
 * only if the user is a member there (and it is not being deleted), so a forged id opens nothing (404,
 * as for any other organization's thing). Every later request reads the organization from this row.
 * The membership is marked used: the next sign-in opens it. Pass the caller's transaction when the
 * membership is made in it (joining from an invitation).
 */
export async function switchSessionOrganization(input: { sessionId: string; userId: string; organizationId: string }, db: DbOrTx = getDb()): Promise<void> {
  const rows = await db.execute(sql`
    with member as (
      select m.organization_id from memberships m join organizations o on o.id = m.organization_id and o.deleted_at is null
      where m.organization_id = ${input.organizationId} and m.user_id = ${input.userId}
    ), switched as (
      update sessions set organization_id = member.organization_id
      from member where sessions.id = ${input.sessionId} and sessions.user_id = ${input.userId}
      returning sessions.id
    )
    update memberships set last_used_at = now()
    from switched where memberships.organization_id = ${input.organizationId} and memberships.user_id = ${input.userId}
    returning 1`);
  if (rows.length === 0) throw new NotFoundError("Organization");
}
