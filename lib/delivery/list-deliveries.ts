import { and } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { decodeCursor, encodeCursor, pageLimit } from "@/lib/pagination";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import { before, page } from "@/lib/search/deliveries-page";
import { deliveryFilterWhere, type DeliveryFilter } from "./delivery-filter";
import { presentDeliverySummary, type DeliverySummary } from "./presentation/present-delivery";
import { searchDeliveries } from "@/lib/search/search-deliveries";
import { searchGate } from "@/lib/search/search-gate";

/** Newest first, keyset-paginated on (receivedAt, id) with microsecond precision. */
export async function listDeliveries({ ctx, input }: { ctx: Ctx; input: DeliveryFilter & { q?: string; limit?: unknown; cursor?: string | null } }) {
  const limit = pageLimit(input.limit);
  const cursor = decodeCursor(input.cursor, "dlv");
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  const where = and(deliveryFilterWhere(ctx.organizationId, idFloor, input), cursor ? before(cursor.atText, cursor.id) : undefined)!;
  const q = input.q;
  const { rows, resumeAt } = q
    ? await searchGate().run(ctx.organizationId, () => searchDeliveries(ctx.db, ctx.organizationId, idFloor, where, q, limit + 1))
    : { rows: await page(ctx.db, where, limit + 1), resumeAt: undefined };
  const last = rows.slice(0, limit).at(-1);
  // A search that stopped walking before its page filled resumes after the last delivery it tested.
  const next = resumeAt ?? (rows.length > limit ? last : undefined);
  return {
    data: rows.slice(0, limit).map(presentDeliverySummary) as DeliverySummary[],
    nextCursor: next ? encodeCursor(next.cursorAt, next.id) : null,
  };
}
