import { and, eq, isNull, sql } from "drizzle-orm";
import { incidents } from "@/db/schema";
import { withTransaction, type Ctx } from "@/lib/context";
import { notifyIncident } from "./notify-incident";

/**
 * Before an endpoint (or one of its destinations) is deleted, in the deletion's transaction: resolves its open
 * incidents and tells their channels (no mail), so a PagerDuty incident or a Slack thread is not left open by
 * a deletion. The notifications outlive the incidents (their incident_id is set null).
 */
export async function closeIncidentsOnDeletion({ ctx: outer, input }: { ctx: Ctx; input: { endpointId: string; destinationId?: string } }): Promise<void> {
  await withTransaction(outer, (ctx) => closeAll(ctx, input));
}

async function closeAll(ctx: Ctx, input: { endpointId: string; destinationId?: string }): Promise<void> {
  const now = new Date();
  const open = await ctx.db
    .select({
      id: incidents.id,
      openedAt: incidents.openedAt,
      destinationId: incidents.destinationId,
      destinationName: sql<string | null>`(select name from destinations where id = ${incidents.destinationId})`,
      endpointName: sql<string>`(select name from endpoints where id = ${incidents.endpointId})`,
      alertEmail: sql<string | null>`(select alert_email from endpoints where id = ${incidents.endpointId})`,
    })
    .from(incidents)
    .where(
      and(
        eq(incidents.organizationId, ctx.organizationId),
        eq(incidents.endpointId, input.endpointId),
        input.destinationId ? eq(incidents.destinationId, input.destinationId) : undefined,
        isNull(incidents.resolvedAt),
      ),
    );
  for (const incident of open) {
    await ctx.db.update(incidents).set({ resolvedAt: now, updatedAt: now }).where(and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.id, incident.id)));
    const endpoint = { id: input.endpointId, name: incident.endpointName, alertEmail: incident.alertEmail, alertPendingAgeSeconds: null, paused: false };
    const destination = incident.destinationId ? { id: incident.destinationId, name: incident.destinationName ?? "(deleted)" } : null;
    await notifyIncident({
      ctx,
      input: { incidentId: incident.id, endpoint, destination, now, event: "resolved", mail: false, message: { kind: "deleted", endpoint, destination, openedAt: incident.openedAt, resolvedAt: now } },
    });
  }
}
