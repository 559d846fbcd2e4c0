import { getSql } from "@/db";
import { newId } from "@/lib/ids";

export const SESSION_DAYS = 30;

/**
 * A new server-side session for a user signing in, working in `organizationId` (null: they belong to
 * none, and see only the page to create one); its id goes in the JWT. The membership is marked used,
 * so the next sign-in opens the same organization.
 */
export async function startSession(input: { userId: string; organizationId: string | null }): Promise<string> {
  const id = newId("ses");
  const sql = getSql();
  await sql`
    insert into sessions (id, user_id, organization_id, expires_at)
    values (${id}, ${input.userId}, ${input.organizationId}, now() + make_interval(days => ${SESSION_DAYS}))`;
  if (input.organizationId) {
    await sql`update memberships set last_used_at = now() where organization_id = ${input.organizationId} and user_id = ${input.userId}`;
  }
  // The user's own expired sessions go as they sign in again, so the table does not keep them forever.
  await sql`delete from sessions where user_id = ${input.userId} and expires_at < now()`;
  return id;
}
