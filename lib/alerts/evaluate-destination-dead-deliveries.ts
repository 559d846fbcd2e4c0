import { and, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { incidents } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { DEFAULT_DEAD_WINDOW_MINUTES } from "@/lib/destinations/destination-input";
import { newId } from "@/lib/ids";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import type { AlertEndpoint } from "./alert-endpoint";
import { notifyIncident } from "./notify-incident";

type Watched = { id: string; name: string; dead_threshold: number; window_minutes: number; dead: number; last_error: string | null };

/**
 * Dead-delivery incidents of one endpoint's destinations that set `deadThreshold` (the others are counted
 * for the endpoint, evaluate-dead-deliveries.ts), as of `now`, in the caller's transaction (which holds the
 * endpoint's alert lock): one opens, and notifies, once `deadThreshold` of the destination's deliveries went
 * dead (not buried) within its last `deadWindowMinutes`; it resolves, and notifies, once fewer have.
 */
export async function evaluateDestinationDeadDeliveries({ ctx, input }: { ctx: Ctx; input: { endpoint: AlertEndpoint; now: Date } }): Promise<void> {
  const { endpoint, now } = input;
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  // status is literal for deliveries_endpoint_dead_idx; a bury's last_error (lib/delivery/sql/bury.ts) is a person's decision.
  const watched = await ctx.db.execute<Watched>(sql`
    select d.id, d.name, d.dead_threshold, coalesce(d.dead_window_minutes, ${DEFAULT_DEAD_WINDOW_MINUTES})::int as window_minutes, c.dead, c.last_error
    from destinations d cross join lateral (
      select count(*)::int as dead, (array_agg(x.last_error order by x.updated_at desc) filter (where x.last_error is not null))[1] as last_error
      from deliveries x
      where x.organization_id = ${ctx.organizationId} and x.endpoint_id = ${endpoint.id} and x.id >= ${idFloor} and x.status = 'dead'
        and x.destination_id = d.id
        and x.updated_at > ${now.toISOString()}::timestamptz - make_interval(mins => coalesce(d.dead_window_minutes, ${DEFAULT_DEAD_WINDOW_MINUTES}))
        and x.updated_at <= ${now.toISOString()}::timestamptz
        and (x.last_error is null or x.last_error not like 'buried on request%')) c
    where d.endpoint_id = ${endpoint.id} and d.organization_id = ${ctx.organizationId} and d.dead_threshold is not null and d.deleted_at is null
    order by d.id`);
  const open = await ctx.db
    .select({ id: incidents.id, destinationId: incidents.destinationId, openedAt: incidents.openedAt, deadCount: incidents.deadCount, destinationName: sql<string | null>`(select name from destinations where id = ${incidents.destinationId})` })
    .from(incidents)
    .where(and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.endpointId, endpoint.id), eq(incidents.kind, "dead_deliveries"), isNotNull(incidents.destinationId), isNull(incidents.resolvedAt)));
  const scope = (id: string) => and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.id, id));

  for (const destination of watched) {
    const incident = open.find((candidate) => candidate.destinationId === destination.id);
    const target = { id: destination.id, name: destination.name };
    if (destination.dead < destination.dead_threshold) continue;
    if (incident) {
      await ctx.db.update(incidents).set({ lastSeenAt: now, deadCount: Math.max(incident.deadCount, destination.dead), lastError: destination.last_error, updatedAt: new Date() }).where(scope(incident.id));
      continue;
    }
    const id = newId("inc");
    await ctx.db.insert(incidents).values({
      id, organizationId: ctx.organizationId, endpointId: endpoint.id, destinationId: destination.id, kind: "dead_deliveries",
      openedAt: now, lastSeenAt: now, deadCount: destination.dead, notifiedDeadCount: destination.dead, countedUntil: now, lastError: destination.last_error,
    });
    await notifyIncident({
      ctx,
      input: {
        incidentId: id, endpoint, destination: target, now, event: "opened",
        message: { kind: "dead_deliveries", endpoint, newCount: destination.dead, totalCount: destination.dead, lastError: destination.last_error, openedAt: now },
      },
    });
  }

  for (const incident of open) {
    const destination = watched.find((candidate) => candidate.id === incident.destinationId);
    if (destination && destination.dead >= destination.dead_threshold) continue;
    await ctx.db.update(incidents).set({ resolvedAt: now, updatedAt: new Date() }).where(scope(incident.id));
    await notifyIncident({
      ctx,
      input: {
        incidentId: incident.id, endpoint, destination: { id: incident.destinationId!, name: incident.destinationName ?? "(deleted)" }, now, event: "resolved",
        message: { kind: "dead_deliveries_resolved", endpoint, totalCount: incident.deadCount, openedAt: incident.openedAt, resolvedAt: now },
      },
    });
  }
}
