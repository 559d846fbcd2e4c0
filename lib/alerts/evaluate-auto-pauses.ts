import { and, eq, isNull, sql } from "drizzle-orm";
import { incidents } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { newId } from "@/lib/ids";
import type { AlertEndpoint } from "./alert-endpoint";
import { notifyIncident } from "./notify-incident";

type Paused = { id: string; name: string; auto_paused_at: string | Date; consecutive_failures: number; failing_since: string | Date | null; last_failure_reason: string | null };

/**
 * The automatic-pause incidents of one endpoint's destinations, as of `now`, inside the caller's transaction
 * (which holds the endpoint's alert lock): one opens, and notifies, for each destination the circuit breaker
 * paused (the attempts' finish sets auto_paused_at, lib/delivery/engine/sql/finish.ts); it resolves, and
 * notifies, once the destination is resumed (which clears auto_paused_at) or deleted.
 */
export async function evaluateAutoPauses({ ctx, input }: { ctx: Ctx; input: { endpoint: AlertEndpoint; now: Date } }): Promise<void> {
  const { endpoint, now } = input;
  const paused = await ctx.db.execute<Paused>(sql`
    select d.id, d.name, d.auto_paused_at, d.consecutive_failures, d.failing_since, d.last_failure_reason from destinations d
    where d.endpoint_id = ${endpoint.id} and d.organization_id = ${ctx.organizationId} and d.auto_paused_at is not null and d.deleted_at is null
    order by d.id`);
  const open = await ctx.db
    .select({ id: incidents.id, destinationId: incidents.destinationId, openedAt: incidents.openedAt, destinationName: sql<string | null>`(select name from destinations where id = ${incidents.destinationId})` })
    .from(incidents)
    .where(and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.endpointId, endpoint.id), eq(incidents.kind, "destination_auto_paused"), isNull(incidents.resolvedAt)));

  for (const destination of paused) {
    if (open.some((incident) => incident.destinationId === destination.id)) continue;
    const id = newId("inc");
    const openedAt = new Date(destination.auto_paused_at);
    const failingSince = destination.failing_since ? new Date(destination.failing_since) : openedAt;
    await ctx.db.insert(incidents).values({
      id,
      organizationId: ctx.organizationId,
      endpointId: endpoint.id,
      destinationId: destination.id,
      kind: "destination_auto_paused",
      openedAt,
      lastSeenAt: now,
      deadCount: destination.consecutive_failures,
      lastError: destination.last_failure_reason,
    });
    const target = { id: destination.id, name: destination.name };
    await notifyIncident({
      ctx,
      input: {
        incidentId: id,
        endpoint,
        destination: target,
        now,
        event: "opened",
        message: { kind: "destination_auto_paused", endpoint, destination: target, failures: destination.consecutive_failures, failingSince, lastError: destination.last_failure_reason, openedAt },
      },
    });
  }

  for (const incident of open) {
    if (paused.some((destination) => destination.id === incident.destinationId)) continue;
    await ctx.db.update(incidents).set({ resolvedAt: now, updatedAt: new Date() }).where(and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.id, incident.id)));
    const target = { id: incident.destinationId ?? "", name: incident.destinationName ?? "(deleted)" };
    await notifyIncident({
      ctx,
      input: { incidentId: incident.id, endpoint, destination: target, now, event: "resolved", message: { kind: "destination_resumed", endpoint, destination: target, openedAt: incident.openedAt, resolvedAt: now } },
    });
  }
}
