import { getSql } from "@/db";
import type { Role } from "@/lib/access/roles";

export interface LiveSession {
  userId: string;
  organizationId: string;
  /** The user's role in that organization, read on every request: a changed role applies at once. */
  role: Role;
}

/**
 * The session behind a dashboard request, or null when it was ended (sign-out, password change), has
 * expired, or its user is no longer a member of its organization. One statement, on two primary keys
 * (sessions.id, memberships (organization_id, user_id)); it refreshes last_seen_at at most once a minute.
 */
export async function checkSession(sessionId: string): Promise<LiveSession | null> {
  const [row] = await getSql()<{ user_id: string; organization_id: string; role: Role }[]>`
    with live as (
      select s.id, s.user_id, s.organization_id, s.last_seen_at, m.role
      from sessions s
      join memberships m on m.organization_id = s.organization_id and m.user_id = s.user_id
      where s.id = ${sessionId} and s.expires_at > now()
    ), seen as (
      update sessions set last_seen_at = now()
      from live where sessions.id = live.id and live.last_seen_at < now() - interval '1 minute'
      returning 1
    )
    select user_id, organization_id, role from live`;
  return row ? { userId: row.user_id, organizationId: row.organization_id, role: row.role } : null;
}
