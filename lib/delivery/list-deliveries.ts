import { and, desc, getTableColumns, sql } from "drizzle-orm";
import { deliveries } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { decodeCursor, encodeCursor, pageLimit } from "@/lib/pagination";
import { deliveryFilterWhere, type DeliveryFilter } from "./delivery-filter";
import { presentDeliverySummary, type DeliverySummary } from "./present-delivery";

const { body: _body, headers: _headers, ...summaryColumns } = getTableColumns(deliveries);

/** `q` matches the external id, the event type, or bytes inside the body. */
function searchWhere(q: string | undefined) {
  if (!q) return undefined;
  return sql`(${deliveries.externalId} = ${q} or ${deliveries.eventType} ilike ${`%${q.replace(/[%_\\]/g, "\\$&")}%`}
    or position(convert_to(${q}, 'UTF8') in ${deliveries.body}) > 0)`;
}

/** Newest first, keyset-paginated on (receivedAt, id) with microsecond precision. */
export async function listDeliveries({ ctx, input }: { ctx: Ctx; input: DeliveryFilter & { q?: string; limit?: unknown; cursor?: string | null } }) {
  const limit = pageLimit(input.limit);
  const cursor = decodeCursor(input.cursor);
  const rows = await ctx.db
    .select({ ...summaryColumns, cursorAt: sql<string>`to_char(${deliveries.receivedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')` })
    .from(deliveries)
    .where(
      and(
        deliveryFilterWhere(ctx.organizationId, input),
        searchWhere(input.q),
        cursor ? sql`(${deliveries.receivedAt}, ${deliveries.id}) < (${cursor.atText}::timestamptz, ${cursor.id})` : undefined,
      ),
    )
    .orderBy(desc(deliveries.receivedAt), desc(deliveries.id))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    data: page.map(presentDeliverySummary) as DeliverySummary[],
    nextCursor: rows.length > limit && last ? encodeCursor(last.cursorAt, last.id) : null,
  };
}
