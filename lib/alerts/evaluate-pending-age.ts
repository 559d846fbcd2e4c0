import { and, eq, isNull, sql } from "drizzle-orm";
import { incidents } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { newId } from "@/lib/ids";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import type { AlertEndpoint } from "./alert-endpoint";
import { ALERT_TIMING, OPEN_COUNT_CAP } from "./alert-settings";
import { notifyIncident } from "./notify-incident";

type OldestOpen = {
  pending_since: string | Date;
  last_error: string | null;
  open_count: number;
};

/**
 * Pending-age incident of one endpoint (over its destinations without an alert age of their own), as of `now`, inside the caller's transaction (which holds the
 * endpoint's alert lock): opens it with one mail when the pending/delivering delivery waiting longest has waited
 * longer than the threshold (since its receipt or its latest replay: pending_since), stays quiet while it is open (but for a reminder every 6 h), and resolves it with one recovery
 * mail once nothing is over the threshold.
 */
export async function evaluatePendingAge({ ctx, input }: { ctx: Ctx; input: { endpoint: AlertEndpoint; now: Date } }): Promise<void> {
  const { endpoint, now } = input;
  const threshold = endpoint.alertPendingAgeSeconds;
  const [open] = await ctx.db
    .select()
    .from(incidents)
    .where(and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.endpointId, endpoint.id), eq(incidents.kind, "pending_age"),
      isNull(incidents.destinationId), isNull(incidents.resolvedAt)));
  if (threshold === null && !open) return;

  // Over the endpoint's destinations that have no pending-age alert of their own (those have theirs:
  // evaluate-destination-pending-age.ts), deleted ones included while their deliveries are ended: each one's oldest
  // is the first entry of deliveries_destination_waiting_idx, and its count reads that index alone, capped (the
  // status list is literal for the partial index; the organization is checked once, on the endpoint).
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  const [oldest] = await ctx.db.execute<OldestOpen>(sql`
    with covered as (
      select d.id from destinations d join endpoints e on e.id = d.endpoint_id
      where d.endpoint_id = ${endpoint.id} and e.organization_id = ${ctx.organizationId} and d.alert_pending_age_seconds is null
    ), first_waiting as (
      select w.pending_since, w.last_error from covered c cross join lateral (
        select o.pending_since, o.last_error from deliveries o
        where o.destination_id = c.id and o.id >= ${idFloor} and o.status in ('pending', 'delivering')
        order by o.pending_since limit 1) w
    )
    select f.pending_since, f.last_error,
      (select least(sum(n), ${OPEN_COUNT_CAP + 1})::int from covered c cross join lateral (
        select count(*) as n from (select 1 from deliveries x
          where x.destination_id = c.id and x.id >= ${idFloor} and x.status in ('pending', 'delivering') limit ${OPEN_COUNT_CAP + 1}) capped) counted) as open_count
    from first_waiting f order by f.pending_since limit 1`);
  const pendingSince = oldest ? new Date(oldest.pending_since) : null;
  const ageMs = pendingSince ? Math.max(0, now.getTime() - pendingSince.getTime()) : 0;
  const ageSeconds = Math.floor(ageMs / 1000);
  const scope = (id: string) => and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.id, id));

  if (threshold !== null && oldest && pendingSince && ageMs > threshold * 1000) {
    const facts = { endpoint, ageSeconds, thresholdSeconds: threshold, openCount: oldest.open_count, oldestPendingSince: pendingSince, lastError: oldest.last_error };
    if (!open) {
      const id = newId("inc");
      await ctx.db.insert(incidents).values({
        id,
        organizationId: ctx.organizationId,
        endpointId: endpoint.id,
        kind: "pending_age",
        openedAt: now,
        lastSeenAt: now,
        thresholdSeconds: threshold,
        peakAgeSeconds: ageSeconds,
        lastError: oldest.last_error,
      });
      await notifyIncident({ ctx, input: { incidentId: id, endpoint, now, event: "opened", message: { kind: "pending_age_opened", openedAt: now, ...facts } } });
      return;
    }
    await ctx.db
      .update(incidents)
      .set({
        lastSeenAt: now,
        peakAgeSeconds: Math.max(open.peakAgeSeconds ?? 0, ageSeconds),
        thresholdSeconds: threshold,
        lastError: oldest.last_error ?? open.lastError,
        updatedAt: new Date(),
      })
      .where(scope(open.id));
    const dueAt = open.lastNotifiedAt ? open.lastNotifiedAt.getTime() + ALERT_TIMING.reminderAfterMs : 0;
    if (now.getTime() >= dueAt) {
      const kind = open.lastNotifiedAt ? "pending_age_reminder" : "pending_age_opened";
      await notifyIncident({ ctx, input: { incidentId: open.id, endpoint, now, event: open.lastNotifiedAt ? "reminder" : "opened", message: { kind, openedAt: open.openedAt, ...facts } } });
    }
    return;
  }

  if (!open) return;
  await ctx.db.update(incidents).set({ resolvedAt: now, updatedAt: new Date() }).where(scope(open.id));
  // Alerting switched off while open: no mail nobody asked for; channels still hear it closed (PagerDuty would keep it open).
  await notifyIncident({
    ctx,
    input: {
      incidentId: open.id,
      endpoint,
      now,
      event: "resolved",
      mail: threshold !== null,
      message: {
        kind: "pending_age_resolved",
        endpoint,
        ageSeconds,
        thresholdSeconds: threshold ?? open.thresholdSeconds ?? 0,
        peakAgeSeconds: open.peakAgeSeconds ?? 0,
        openedAt: open.openedAt,
        resolvedAt: now,
        lastError: open.lastError,
      },
    },
  });
}
