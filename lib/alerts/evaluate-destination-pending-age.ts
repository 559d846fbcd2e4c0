import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { incidents } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { newId } from "@/lib/ids";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import type { AlertEndpoint } from "./alert-endpoint";
import { ALERT_TIMING, OPEN_COUNT_CAP } from "./alert-settings";
import { notifyIncident } from "./notify-incident";

type Watched = { id: string; name: string; threshold: number; pending_since: Date | string | null; last_error: string | null; open_count: number };

/**
 * Pending-age incidents of one endpoint's destinations that set an alert age of their own (`alertPendingAgeSeconds`;
 * the others are the endpoint's, evaluate-pending-age.ts), as of `now`, in the caller's transaction (which holds the
 * endpoint's alert lock): one opens, and notifies, when the destination's delivery waiting longest has waited past
 * its threshold (since receipt or latest replay); a reminder by mail every 6 h while open; it resolves, and
 * notifies, once none has. Each destination's oldest is the first entry of deliveries_destination_waiting_idx,
 * so another destination's backlog is never read.
 */
export async function evaluateDestinationPendingAge({ ctx, input }: { ctx: Ctx; input: { endpoint: AlertEndpoint; now: Date } }): Promise<void> {
  const { endpoint, now } = input;
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  const watched = await ctx.db.execute<Watched>(sql`
    select d.id, d.name, d.alert_pending_age_seconds as threshold, w.pending_since, w.last_error,
      (select count(*)::int from (select 1 from deliveries x
        where x.destination_id = d.id and x.id >= ${idFloor} and x.status in ('pending', 'delivering') limit ${OPEN_COUNT_CAP + 1}) capped) as open_count
    from destinations d left join lateral (
      select o.pending_since, o.last_error from deliveries o
      where o.destination_id = d.id and o.id >= ${idFloor} and o.status in ('pending', 'delivering')
      order by o.pending_since limit 1) w on true
    where d.endpoint_id = ${endpoint.id} and d.organization_id = ${ctx.organizationId} and d.alert_pending_age_seconds is not null and d.deleted_at is null
    order by d.id`);
  const open = await ctx.db
    .select()
    .from(incidents)
    .where(and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.endpointId, endpoint.id), eq(incidents.kind, "pending_age"),
      isNotNull(incidents.destinationId), isNull(incidents.resolvedAt)));
  const scope = (id: string) => and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.id, id));

  for (const destination of watched) {
    const incident = open.find((candidate) => candidate.destinationId === destination.id);
    const pendingSince = destination.pending_since === null ? null : new Date(destination.pending_since);
    const ageSeconds = pendingSince ? Math.floor(Math.max(0, now.getTime() - pendingSince.getTime()) / 1000) : 0;
    if (!pendingSince || ageSeconds * 1000 <= destination.threshold * 1000) continue; // resolved below, if open
    const target = { id: destination.id, name: destination.name };
    const facts = {
      endpoint, ageSeconds, thresholdSeconds: destination.threshold, openCount: destination.open_count, oldestPendingSince: pendingSince, lastError: destination.last_error,
    };
    if (!incident) {
      const id = newId("inc");
      await ctx.db.insert(incidents).values({
        id, organizationId: ctx.organizationId, endpointId: endpoint.id, destinationId: destination.id, kind: "pending_age",
        openedAt: now, lastSeenAt: now, thresholdSeconds: destination.threshold, peakAgeSeconds: ageSeconds, lastError: destination.last_error,
      });
      await notifyIncident({ ctx, input: { incidentId: id, endpoint, destination: target, now, event: "opened", message: { kind: "pending_age_opened", openedAt: now, ...facts } } });
      continue;
    }
    await ctx.db.update(incidents).set({
      lastSeenAt: now, peakAgeSeconds: Math.max(incident.peakAgeSeconds ?? 0, ageSeconds), thresholdSeconds: destination.threshold,
      lastError: destination.last_error ?? incident.lastError, updatedAt: new Date(),
    }).where(scope(incident.id));
    const dueAt = incident.lastNotifiedAt ? incident.lastNotifiedAt.getTime() + ALERT_TIMING.reminderAfterMs : 0;
    if (now.getTime() >= dueAt) {
      await notifyIncident({
        ctx,
        input: {
          incidentId: incident.id, endpoint, destination: target, now, event: incident.lastNotifiedAt ? "reminder" : "opened",
          message: { kind: incident.lastNotifiedAt ? "pending_age_reminder" : "pending_age_opened", openedAt: incident.openedAt, ...facts },
        },
      });
    }
  }

  for (const incident of open) {
    const destination = watched.find((candidate) => candidate.id === incident.destinationId);
    const pendingSince = destination?.pending_since ? new Date(destination.pending_since) : null;
    const ageSeconds = pendingSince ? Math.floor(Math.max(0, now.getTime() - pendingSince.getTime()) / 1000) : 0;
    if (destination && pendingSince && ageSeconds > destination.threshold) continue;
    await ctx.db.update(incidents).set({ resolvedAt: now, updatedAt: new Date() }).where(scope(incident.id));
    await notifyIncident({
      ctx,
      input: {
        incidentId: incident.id, endpoint, now, event: "resolved",
        // Its alert age removed (or the destination deleted) while open: channels still hear it closed, no mail.
        mail: destination !== undefined,
        destination: { id: incident.destinationId!, name: destination?.name ?? "(deleted)" },
        message: {
          kind: "pending_age_resolved", endpoint, ageSeconds, thresholdSeconds: destination?.threshold ?? incident.thresholdSeconds ?? 0,
          peakAgeSeconds: incident.peakAgeSeconds ?? 0, openedAt: incident.openedAt, resolvedAt: now, lastError: incident.lastError,
        },
      },
    });
  }
}
