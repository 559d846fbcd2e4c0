import { and, desc, eq, isNull, sql } from "drizzle-orm";
import { destinations, endpoints } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { decodeCursor, encodeCursor, pageLimit } from "@/lib/pagination";
import { presentDestination, type DestinationView } from "./present-destination";

// created_at holds microseconds and a cursor milliseconds (encodeCursor): pages are ordered by the millisecond,
// so two destinations made within one millisecond are neither skipped nor shown twice.
const createdMs = sql<Date>`date_trunc('milliseconds', ${destinations.createdAt})`;

/** An endpoint's destinations (its default one among them), newest first, cursor-paginated; deleted ones are not listed. */
export async function listDestinations({ ctx, input }: {
  ctx: Ctx;
  input: { endpointId: string; limit?: unknown; cursor?: string | null };
}): Promise<{ data: DestinationView[]; nextCursor: string | null }> {
  const limit = pageLimit(input.limit);
  const cursor = decodeCursor(input.cursor, "dst");
  const [endpoint] = await ctx.db
    .select({ id: endpoints.id })
    .from(endpoints)
    .where(and(eq(endpoints.id, input.endpointId), eq(endpoints.organizationId, ctx.organizationId)));
  if (!endpoint) throw new NotFoundError("Endpoint");
  const rows = await ctx.db
    .select()
    .from(destinations)
    .where(
      and(
        eq(destinations.endpointId, endpoint.id),
        eq(destinations.organizationId, ctx.organizationId),
        isNull(destinations.deletedAt),
        cursor
          ? sql`(${createdMs} < ${cursor.atText}::timestamptz or (${createdMs} = ${cursor.atText}::timestamptz and ${destinations.id} < ${cursor.id}))`
          : undefined,
      ),
    )
    .orderBy(desc(createdMs), desc(destinations.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(presentDestination),
    nextCursor: rows.length > limit && last ? encodeCursor(last.createdAt, last.id) : null,
  };
}
