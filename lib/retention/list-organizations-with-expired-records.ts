import { sql } from "drizzle-orm";
import { getDb } from "@/db";
import { quarantineSettings } from "@/lib/quarantine/quarantine-settings";
import { AUDIT_RETENTION_DAYS } from "./delete-expired-audit-entries";

/**
 * Ids of the organizations that have something past their retention, in a fresh random order each
 * call (so no organization is always last in line when a run's budget ends). One indexed probe per
 * organization and kind, stopping at the first kind that has something.
 */
export async function listOrganizationsWithExpiredRecords(db = getDb()): Promise<string[]> {
  const rows = await db.execute<{ id: string }>(sql`
    select o.id from organizations o
    cross join lateral (select now() - make_interval(days => o.retention_days) as cutoff) c
    where exists (
        select 1 from deliveries d
        where d.organization_id = o.id and d.status in ('delivered', 'dead') and d.updated_at < c.cutoff
          and (d.claimed_by_job is null or d.lease_expires_at < now()))
      or exists (
        select 1 from mails m
        where m.organization_id = o.id and m.status in ('sent', 'logged', 'failed') and m.created_at < c.cutoff)
      or exists (
        select 1 from incidents i
        where i.organization_id = o.id and i.opened_at < c.cutoff and i.resolved_at < c.cutoff)
      or exists (
        select 1 from endpoints e join rejected_requests r on r.endpoint_id = e.id
        where e.organization_id = o.id and r.at < c.cutoff)
      or exists (
        select 1 from quarantined_requests q
        where q.organization_id = o.id
          and q.received_at < now() - make_interval(days => least(${quarantineSettings().days}::int, o.retention_days)))
      or exists (
        select 1 from audit_log a
        where a.organization_id = o.id and a.at < now() - make_interval(days => ${AUDIT_RETENTION_DAYS}::int))
    order by random()`);
  return rows.map((row) => row.id);
}
