import { sql, type SQL } from "drizzle-orm";

/**
 * The instant before which an organization's records have expired, in SQL: the database's clock
 * less the organization's retention, read in the statement itself so a change applies at once.
 */
export function retentionCutoff(organizationId: string): SQL {
  return sql`(now() - make_interval(days => (select o.retention_days from organizations o where o.id = ${organizationId})))`;
}
