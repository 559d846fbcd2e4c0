import { and, asc, desc, eq, isNull } from "drizzle-orm";
import { destinations } from "@/db/schema";
import type { Ctx } from "@/lib/context";

/** More than a select can usefully offer; the deliveries list still takes any destinationId in its URL. */
export const MAX_DESTINATION_CHOICES = 1000;

/**
 * The destinations (not deleted) of ctx's organization, or of one of its endpoints, as a filter offers them:
 * id, name and endpoint, grouped by endpoint, each endpoint's default one first, then by name; with where each goes
 * and whether it is paused, for the endpoints list.
 */
export async function listDestinationChoices({ ctx, input }: { ctx: Ctx; input: { endpointId?: string } }): Promise<Array<{ id: string; name: string; endpointId: string; default: boolean; type: string; url: string | null; paused: boolean }>> {
  const rows = await ctx.db
    .select({
      id: destinations.id, name: destinations.name, endpointId: destinations.endpointId, default: destinations.isDefault,
      type: destinations.type, url: destinations.url, paused: destinations.paused,
    })
    .from(destinations)
    .where(
      and(
        eq(destinations.organizationId, ctx.organizationId),
        input.endpointId ? eq(destinations.endpointId, input.endpointId) : undefined,
        isNull(destinations.deletedAt),
      ),
    )
    .orderBy(asc(destinations.endpointId), desc(destinations.isDefault), asc(destinations.name), asc(destinations.id))
    .limit(MAX_DESTINATION_CHOICES);
  return rows;
}
