import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import type { AlertChannelRow } from "./present-alert-channel";
import { alertChannels } from "@/db/schema";
import { and, eq, inArray } from "drizzle-orm";

/**
 * The channels an incident is told on (API.md "Alerts"): its destination's alertChannelIds, else its
 * endpoint's; none means the default mail (alertEmail, else the owners).
 */
export async function incidentChannels({ ctx, input }: { ctx: Ctx; input: { endpointId: string; destinationId?: string | null } }): Promise<AlertChannelRow[]> {
  const [named] = await ctx.db.execute<{ ids: string[] | null }>(sql`
    select coalesce(
      (select nullif(d.alert_channel_ids, '{}') from destinations d
        where d.id = ${input.destinationId ?? null} and d.organization_id = ${ctx.organizationId}),
      (select e.alert_channel_ids from endpoints e where e.id = ${input.endpointId} and e.organization_id = ${ctx.organizationId})) as ids`);
  const ids = named?.ids ?? [];
  if (ids.length === 0) return [];
  return ctx.db
    .select()
    .from(alertChannels)
    .where(and(eq(alertChannels.organizationId, ctx.organizationId), inArray(alertChannels.id, ids)))
    .orderBy(alertChannels.id);
}
