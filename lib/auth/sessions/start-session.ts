import { getSql } from "@/db";
import { newId } from "@/lib/ids";

export const SESSION_DAYS = 30;

/** A new server-side session for a user signing in, working in `organizationId`; its id goes in the JWT. */
export async function startSession(input: { userId: string; organizationId: string }): Promise<string> {
  const id = newId("ses");
  const sql = getSql();
  await sql`
    insert into sessions (id, user_id, organization_id, expires_at)
    values (${id}, ${input.userId}, ${input.organizationId}, now() + make_interval(days => ${SESSION_DAYS}))`;
  // The user's own expired sessions go as they sign in again, so the table does not keep them forever.
  await sql`delete from sessions where user_id = ${input.userId} and expires_at < now()`;
  return id;
}
