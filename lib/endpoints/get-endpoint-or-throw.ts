import { and, eq } from "drizzle-orm";
import { destinations, endpoints } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { joinDefaultDestination } from "@/lib/destinations/default-destination";
import { endpointRowColumns, type EndpointRow } from "./endpoint-row";

/**
 * The endpoint row of ctx's organization, with the fields its default destination holds (endpoint-row.ts);
 * another organization's id is simply not found.
 */
export async function getEndpointRowOrThrow({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<EndpointRow> {
  const [row] = await ctx.db
    .select(endpointRowColumns)
    .from(endpoints)
    .innerJoin(destinations, joinDefaultDestination)
    .where(and(eq(endpoints.id, input.id), eq(endpoints.organizationId, ctx.organizationId)))
    .limit(1);
  if (!row) throw new NotFoundError("Endpoint");
  return row;
}
