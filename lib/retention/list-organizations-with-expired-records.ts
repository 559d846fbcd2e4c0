import { sql } from "drizzle-orm";
import { getDb, type DbOrTx } from "@/db";
import { quarantineSettings } from "@/lib/quarantine/quarantine-settings";
import { AUDIT_RETENTION_DAYS } from "./delete-expired-audit-entries";

/**
 * Ids of the organizations that have something past their retention, in a fresh random order each
 * call (so no organization is always last in line when a run's budget ends). Per organization and
 * kind, one walk of an index from its oldest row, stopping at the first kind that has something.
 * Each probe is `exists (select from (… order by <the index's time> limit 1) oldest)`: as a bare
 * EXISTS, the planner, guessing a third of the rows past a cutoff it cannot see, chose a sequential
 * scan per organization, or one hashed scan of the whole table, and an organization with nothing
 * expired made it read every organization's rows every minute (expired-records-probe.int.test.ts).
 */
export async function listOrganizationsWithExpiredRecords(db: DbOrTx = getDb()): Promise<string[]> {
  const rows = await db.execute<{ id: string }>(sql`
    select o.id from organizations o
    cross join lateral (select now() - make_interval(days => o.retention_days) as cutoff) c
    where exists (select from (
        select from deliveries d
        where d.organization_id = o.id and d.status in ('delivered', 'dead') and d.updated_at < c.cutoff
          and (d.claimed_by_job is null or d.lease_expires_at < now())
        order by d.updated_at limit 1) oldest)
      or exists (select from (
        select from mails m
        where m.organization_id = o.id and m.status in ('sent', 'logged', 'failed') and m.created_at < c.cutoff
        order by m.created_at limit 1) oldest)
      or exists (select from (
        select from incidents i
        where i.organization_id = o.id and i.opened_at < c.cutoff and i.resolved_at < c.cutoff
        order by i.opened_at limit 1) oldest)
      or exists (select from (
        select from alert_notifications n
        where n.organization_id = o.id and n.created_at < c.cutoff and n.incident_id is null
          and (n.status in ('sent', 'failed') or n.mail_id is not null)
        order by n.created_at limit 1) oldest)
      or exists (select from endpoints e where e.organization_id = o.id and exists (select from (
        select from rejected_requests r
        where r.endpoint_id = e.id and r.at < c.cutoff
        order by r.at limit 1) oldest))
      or exists (select from (
        select from quarantined_requests q
        where q.organization_id = o.id
          and q.received_at < now() - make_interval(days => least(${quarantineSettings().days}::int, o.retention_days))
        order by q.received_at limit 1) oldest)
      or exists (select from (
        select from audit_log a
        where a.organization_id = o.id and a.at < now() - make_interval(days => ${AUDIT_RETENTION_DAYS}::int)
        order by a.at limit 1) oldest)
    order by random()`);
  return rows.map((row) => row.id);
}
