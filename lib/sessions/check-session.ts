import { getSql } from "@/db";
import type { Role } from "@/lib/access/roles";

export interface LiveSession {
  userId: string;
  /** The organization the session works in; null when the user has none left (see start-session.ts). */
  organizationId: string | null;
  /** The user's role in that organization, read on every request: a changed role applies at once. */
  role: Role | null;
}

/**
 * The session behind a dashboard request, or null when it was ended (sign-out, password change), has
 * expired, or its user is no longer a member of its organization (or that organization is being
 * deleted). One statement, on primary keys (sessions.id, memberships (organization_id, user_id),
 * organizations.id); it refreshes last_seen_at at most once a minute.
 */
export async function checkSession(sessionId: string): Promise<LiveSession | null> {
  const [row] = await getSql()<{ user_id: string; organization_id: string | null; role: Role | null }[]>`
    with live as (
      select s.id, s.user_id, s.organization_id, s.last_seen_at, m.role
      from sessions s
      left join memberships m on m.organization_id = s.organization_id and m.user_id = s.user_id
        and exists (select 1 from organizations o where o.id = m.organization_id and o.deleted_at is null)
      where s.id = ${sessionId} and s.expires_at > now()
        and (s.organization_id is null or m.role is not null)
    ), seen as (
      update sessions set last_seen_at = now()
      from live where sessions.id = live.id and live.last_seen_at < now() - interval '1 minute'
      returning 1
    )
    select user_id, organization_id, role from live`;
  return row ? { userId: row.user_id, organizationId: row.organization_id, role: row.role } : null;
}
