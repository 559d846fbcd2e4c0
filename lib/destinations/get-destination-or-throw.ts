import { and, eq, isNull, type SQL } from "drizzle-orm";
import { destinations } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import type { DestinationRow } from "./present-destination";

/** Destination `id` of endpoint `endpointId` in `organizationId`, not deleted: the one a caller may name. */
export function namedDestination(organizationId: string, input: { endpointId: string; id: string }): SQL {
  return and(
    eq(destinations.id, input.id),
    eq(destinations.endpointId, input.endpointId),
    eq(destinations.organizationId, organizationId),
    isNull(destinations.deletedAt),
  )!;
}

/**
 * The destination `id` of endpoint `endpointId` in ctx's organization. Another organization's, another
 * endpoint's, and a deleted one (its deliveries still being ended) are simply not found.
 */
export async function getDestinationRowOrThrow({ ctx, input }: { ctx: Ctx; input: { endpointId: string; id: string } }): Promise<DestinationRow> {
  const [row] = await ctx.db
    .select()
    .from(destinations)
    .where(namedDestination(ctx.organizationId, input))
    .limit(1);
  if (!row) throw new NotFoundError("Destination");
  return row;
}
