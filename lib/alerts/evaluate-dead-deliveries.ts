import { and, eq, isNull, max, sql } from "drizzle-orm";
import { incidents } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { newId } from "@/lib/ids";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import type { AlertEndpoint } from "./alert-endpoint";
import { ALERT_TIMING } from "./alert-settings";
import { notifyIncident } from "./notify-incident";

/**
 * Dead-delivery incident of one endpoint, as of `now`, inside the caller's transaction (which holds the
 * endpoint's alert lock). Counts the deliveries that went dead since the incident's watermark
 * (`counted_until`); mails at most once an hour how many went dead and the last error; resolves quietly once
 * nothing has gone dead for an hour and every dead delivery counted has been named in a mail.
 * Applies to endpoints that opted into alerts (alertPendingAgeSeconds or alertEmail set); buried deliveries do not count.
 */
export async function evaluateDeadDeliveries({ ctx, input }: { ctx: Ctx; input: { endpoint: AlertEndpoint; now: Date } }): Promise<void> {
  const { endpoint, now } = input;
  // The endpoint's own incident; destinations that set deadThreshold have theirs (evaluate-destination-dead-deliveries.ts).
  const ofEndpoint = and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.endpointId, endpoint.id), eq(incidents.kind, "dead_deliveries"), isNull(incidents.destinationId));
  const [open] = await ctx.db.select().from(incidents).where(and(ofEndpoint, isNull(incidents.resolvedAt)));
  const alerting = endpoint.alertPendingAgeSeconds !== null || endpoint.alertEmail !== null;
  const scope = (id: string) => and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.id, id));
  const toldResolved = (incident: typeof open & {}) =>
    notifyIncident({
      ctx,
      input: { incidentId: incident.id, endpoint, now, event: "resolved", mail: false, message: { kind: "dead_deliveries_resolved", endpoint, totalCount: incident.deadCount, openedAt: incident.openedAt, resolvedAt: now } },
    });
  if (!alerting) {
    if (open) {
      await ctx.db.update(incidents).set({ resolvedAt: now, updatedAt: new Date() }).where(scope(open.id));
      await toldResolved(open);
    }
    return;
  }

  let since: Date;
  if (open) since = open.countedUntil ?? open.openedAt;
  else {
    const [previous] = await ctx.db.select({ countedUntil: max(incidents.countedUntil) }).from(incidents).where(ofEndpoint);
    const floor = now.getTime() - ALERT_TIMING.deadLookbackMs;
    since = new Date(Math.max(floor, previous?.countedUntil ? new Date(previous.countedUntil).getTime() : floor));
  }
  const until = new Date(Math.max(since.getTime(), now.getTime() - ALERT_TIMING.deadSettleMs));
  // status is literal so the planner can use the partial index deliveries_endpoint_dead_idx. Deliveries a
  // person buried (lib/delivery/sql/bury.ts writes that last_error) are their decision, not an alert.
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  const [counted] = await ctx.db.execute<{ count: number; last_error: string | null }>(sql`
    select count(*)::int as count,
      (array_agg(last_error order by updated_at desc) filter (where last_error is not null))[1] as last_error
    from deliveries
    where organization_id = ${ctx.organizationId} and endpoint_id = ${endpoint.id} and id >= ${idFloor} and status = 'dead'
      and updated_at > ${since.toISOString()}::timestamptz and updated_at <= ${until.toISOString()}::timestamptz
      and (last_error is null or last_error not like 'buried on request%')
      and not exists (select 1 from destinations w where w.id = deliveries.destination_id and w.dead_threshold is not null)`);
  const fresh = counted?.count ?? 0;
  const lastError = counted?.last_error ?? null;

  if (!open) {
    if (fresh === 0) return;
    const id = newId("inc");
    await ctx.db.insert(incidents).values({
      id,
      organizationId: ctx.organizationId,
      endpointId: endpoint.id,
      kind: "dead_deliveries",
      openedAt: now,
      lastSeenAt: now,
      deadCount: fresh,
      countedUntil: until,
      lastError,
    });
    await notifyIncident({
      ctx,
      input: { incidentId: id, endpoint, now, event: "opened", notifiedDeadCount: fresh, message: { kind: "dead_deliveries", endpoint, newCount: fresh, totalCount: fresh, lastError, openedAt: now } },
    });
    return;
  }

  const deadCount = open.deadCount + fresh;
  const seenAt = fresh > 0 ? now : open.lastSeenAt;
  const latestError = lastError ?? open.lastError;
  const mailAllowed = !open.lastNotifiedAt || now.getTime() - open.lastNotifiedAt.getTime() >= ALERT_TIMING.deadMailIntervalMs;
  const unnamed = deadCount - open.notifiedDeadCount;
  const quiet = now.getTime() - seenAt.getTime() >= ALERT_TIMING.deadQuietMs;
  const resolving = unnamed === 0 && quiet && mailAllowed;
  await ctx.db
    .update(incidents)
    .set({
      deadCount,
      countedUntil: until,
      lastSeenAt: seenAt,
      lastError: latestError,
      resolvedAt: resolving ? now : null,
      updatedAt: new Date(),
    })
    .where(scope(open.id));
  if (unnamed > 0 && mailAllowed) {
    await notifyIncident({
      ctx,
      input: {
        incidentId: open.id,
        endpoint,
        now,
        event: "update",
        notifiedDeadCount: deadCount,
        message: { kind: "dead_deliveries", endpoint, newCount: unnamed, totalCount: deadCount, lastError: latestError, openedAt: open.openedAt },
      },
    });
  }
  // Resolved quietly by mail (as ever); the channels that heard it open hear it close.
  if (resolving) await toldResolved({ ...open, deadCount });
}
