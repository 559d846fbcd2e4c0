import { sql } from "drizzle-orm";
import { getDb, type Db } from "@/db";
import { createCtx } from "@/lib/context";
import { DEFAULT_DEAD_WINDOW_MINUTES } from "@/lib/destinations/destination-input";
import { ALERT_TIMING } from "./alert-settings";
import { evaluateEndpointAlerts } from "./evaluate-endpoint-alerts";
import { describeErrorBriefly } from "@/lib/logging/describe-error";
import { logger } from "@/lib/logging/logger";

/**
 * The sweep behind the every-minute cron (jobs/check-alerts.ts), as of `now` so tests drive time. The one
 * cross-tenant read: it lists endpoints that may need a decision (an open incident, a delivery over the
 * threshold, a recent dead delivery), then evaluates each in its own organization's ctx and transaction.
 * One endpoint's failure is logged and does not stop the others.
 */
export async function checkAlerts({ input, db = getDb() }: { input: { now: Date }; db?: Db }): Promise<{ evaluated: number; failed: number }> {
  const now = input.now.toISOString();
  const lookback = `${Math.ceil((ALERT_TIMING.deadLookbackMs + ALERT_TIMING.deadSettleMs) / 1000)} seconds`;
  const candidates = await db.execute<{ id: string; organization_id: string }>(sql`
    -- Each endpoint's deliveries from its organization's delivery id floor on (lib/storage/delivery-id-floor.ts):
    -- pruned as each probe runs, to the weeks that organization holds.
    select e.id, e.organization_id from endpoints e join organizations org on org.id = e.organization_id
    where exists (select 1 from incidents i where i.endpoint_id = e.id and i.resolved_at is null)
      or exists (select 1 from destinations d where d.endpoint_id = e.id and d.auto_paused_at is not null)
      or exists (select 1 from destinations w where w.endpoint_id = e.id and w.dead_threshold is not null and exists (
        select 1 from deliveries d where d.endpoint_id = e.id and d.id >= org.delivery_id_floor and d.status = 'dead' and d.destination_id = w.id
          and d.updated_at > ${now}::timestamptz - make_interval(mins => coalesce(w.dead_window_minutes, ${DEFAULT_DEAD_WINDOW_MINUTES}))))
      or exists (select 1 from destinations a where a.endpoint_id = e.id and a.alert_pending_age_seconds is not null and exists (
        select 1 from deliveries d where d.destination_id = a.id and d.id >= org.delivery_id_floor and d.status in ('pending', 'delivering')
          and d.pending_since < ${now}::timestamptz - make_interval(secs => a.alert_pending_age_seconds)))
      or (e.alert_pending_age_seconds is not null and exists (
        select 1 from deliveries d where d.endpoint_id = e.id and d.id >= org.delivery_id_floor and d.status in ('pending', 'delivering')
          and d.pending_since < ${now}::timestamptz - make_interval(secs => e.alert_pending_age_seconds)))
      or ((e.alert_pending_age_seconds is not null or e.alert_email is not null) and exists (
        select 1 from deliveries d where d.endpoint_id = e.id and d.id >= org.delivery_id_floor and d.status = 'dead'
          and d.updated_at > ${now}::timestamptz - ${lookback}::interval))`);
  let failed = 0;
  for (const { id, organization_id } of candidates) {
    try {
      await evaluateEndpointAlerts({ ctx: createCtx(organization_id, { type: "system" }, db), input: { endpointId: id, now: input.now } });
    } catch (error) {
      failed++;
      logger.error({ organizationId: organization_id, endpointId: id }, `[alerts] evaluating endpoint ${id} failed: ${describeErrorBriefly(error)}`);
    }
  }
  return { evaluated: candidates.length, failed };
}
