import { and, desc, eq, lt, or } from "drizzle-orm";
import { destinations, endpoints } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { decodeCursor, encodeCursor, pageLimit } from "@/lib/pagination";
import { joinDefaultDestination } from "@/lib/destinations/default-destination";
import { endpointRowColumns } from "./endpoint-row";
import { presentEndpoint, type EndpointView } from "./present-endpoint";

/** Newest first, cursor-paginated; each with the fields its default destination holds (endpoint-row.ts). */
export async function listEndpoints({ ctx, input }: { ctx: Ctx; input: { limit?: unknown; cursor?: string | null } }) {
  const limit = pageLimit(input.limit);
  const cursor = decodeCursor(input.cursor, "ep");
  const rows = await ctx.db
    .select(endpointRowColumns)
    .from(endpoints)
    .innerJoin(destinations, joinDefaultDestination)
    .where(
      and(
        eq(endpoints.organizationId, ctx.organizationId),
        cursor
          ? or(lt(endpoints.createdAt, cursor.at), and(eq(endpoints.createdAt, cursor.at), lt(endpoints.id, cursor.id)))
          : undefined,
      ),
    )
    .orderBy(desc(endpoints.createdAt), desc(endpoints.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(presentEndpoint) as EndpointView[],
    nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null,
  };
}
