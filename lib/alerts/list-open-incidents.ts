import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { endpoints, incidents, type IncidentKind } from "@/db/schema";
import type { Ctx } from "@/lib/context";

/** What every list of incidents shows of one (the overview's open ones, the Incidents page's). */
export interface IncidentSummary {
  id: string;
  kind: IncidentKind;
  endpointId: string;
  endpointName: string;
  destinationName: string | null;
  openedAt: Date;
  thresholdSeconds: number | null;
  peakAgeSeconds: number | null;
  deadCount: number;
  lastError: string | null;
}

export interface OpenIncidentView extends IncidentSummary {
  lastSeenAt: Date;
  lastNotifiedAt: Date | null;
  notifyError: string | null;
}

/** The organization's open incidents, newest first. */
export async function listOpenIncidents({ ctx }: { ctx: Ctx }): Promise<OpenIncidentView[]> {
  return ctx.db
    .select({
      id: incidents.id,
      kind: incidents.kind,
      endpointId: incidents.endpointId,
      endpointName: endpoints.name,
      destinationName: sql<string | null>`(select d.name from destinations d where d.id = ${incidents.destinationId})`,
      openedAt: incidents.openedAt,
      lastSeenAt: incidents.lastSeenAt,
      thresholdSeconds: incidents.thresholdSeconds,
      peakAgeSeconds: incidents.peakAgeSeconds,
      deadCount: incidents.deadCount,
      lastError: incidents.lastError,
      lastNotifiedAt: incidents.lastNotifiedAt,
      notifyError: incidents.notifyError,
    })
    .from(incidents)
    .innerJoin(endpoints, and(eq(endpoints.id, incidents.endpointId), eq(endpoints.organizationId, incidents.organizationId)))
    .where(and(eq(incidents.organizationId, ctx.organizationId), isNull(incidents.resolvedAt)))
    .orderBy(desc(incidents.openedAt), desc(incidents.id));
}
