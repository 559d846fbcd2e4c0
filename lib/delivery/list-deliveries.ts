import { and } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { decodeCursor, encodeCursor, pageLimit } from "@/lib/pagination";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import { before, page } from "@/lib/search/deliveries-page";
import { deliveryFilterWhere, type DeliveryFilter } from "./delivery-filter";
import { presentDeliverySummary, type DeliverySummary } from "./presentation/present-delivery";
import { searchDeliveries } from "@/lib/search/search-deliveries";
import { searchGate } from "@/lib/search/search-gate";
import { requestIdOf } from "@/lib/ids";
import { destinationNames, rowsOfRequests } from "./request-rows";

/** Stored requests, newest first, keyset-paginated on (receivedAt, id) with microsecond precision; a request is listed when one of its rows passes the filter. */
export async function listDeliveries({ ctx, input }: { ctx: Ctx; input: DeliveryFilter & { q?: string; limit?: unknown; cursor?: string | null } }) {
  const limit = pageLimit(input.limit);
  const cursor = decodeCursor(input.cursor, "dlv");
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  const where = and(deliveryFilterWhere(ctx.organizationId, idFloor, input), cursor ? before(cursor.atText, cursor.id) : undefined)!;
  const q = input.q;
  const { rows, resumeAt } = q
    ? await searchGate().run(ctx.organizationId, () => searchDeliveries(ctx.db, ctx.organizationId, idFloor, where, q, limit + 1))
    : { rows: await page(ctx.db, where, limit + 1), resumeAt: undefined };
  // A request's rows (one per destination) sit together in this order; its item is listed once, summed up over
  // all its rows (some of which the filter may not have named). The cursor is its request id: rows of another
  // destination sort above it (lib/ids.ts), so the next page neither repeats nor skips one.
  const requests: { id: string; cursorAt: string }[] = [];
  for (const row of rows) {
    const id = requestIdOf(row.id);
    if (requests.at(-1)?.id !== id) requests.push({ id, cursorAt: row.cursorAt });
  }
  const listed = requests.slice(0, limit);
  const more = rows.length > limit || requests.length > limit;
  const last = listed.at(-1);
  // A search that stopped walking before its page filled resumes after the last delivery it tested.
  const next = resumeAt ?? (more ? last : undefined);
  const byRequest = await rowsOfRequests(ctx.db, ctx.organizationId, listed.map((r) => r.id));
  const all = [...byRequest.values()].flat();
  const names = await destinationNames(ctx.db, ctx.organizationId, all);
  return {
    data: listed.flatMap((r) => (byRequest.get(r.id)?.length ? [presentDeliverySummary(byRequest.get(r.id)!, names)] : [])) as DeliverySummary[],
    nextCursor: next ? encodeCursor(next.cursorAt, requestIdOf(next.id)) : null,
  };
}
