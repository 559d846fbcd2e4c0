// A stored request's delivery rows, one per destination (lib/ids.ts deliveryRowId): what the API calls a
// delivery is the request, and its item sums its rows up (API.md "Destinations").
import { and, eq, gt, inArray, lt, or, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { deliveries, destinations } from "@/db/schema";
import { REQUEST_ROW_SEPARATOR, requestIdOf } from "@/lib/ids";

export type DeliveryRow = typeof deliveries.$inferSelect;

/** The rows of request `requestId`: its own id, and its id followed by the separator (one range of the key). */
export function rowsOfRequestWhere(requestId: string): SQL {
  const after = String.fromCharCode(REQUEST_ROW_SEPARATOR.charCodeAt(0) + 1);
  return or(eq(deliveries.id, requestId), and(gt(deliveries.id, requestId + REQUEST_ROW_SEPARATOR), lt(deliveries.id, requestId + after)))!;
}

/** Every row of each request, of `organizationId` only, by request id, each request's rows in id order. */
export async function rowsOfRequests(db: DbOrTx, organizationId: string, requestIds: readonly string[]): Promise<Map<string, DeliveryRow[]>> {
  const byRequest = new Map<string, DeliveryRow[]>(requestIds.map((id) => [id, []]));
  if (requestIds.length === 0) return byRequest;
  // Two probes of the primary key per request, in the partitions of their weeks only (the ids are constants).
  const rows = await db
    .select()
    .from(deliveries)
    .where(and(eq(deliveries.organizationId, organizationId), or(...requestIds.map(rowsOfRequestWhere))))
    .orderBy(deliveries.id);
  for (const row of rows) byRequest.get(requestIdOf(row.id))?.push(row);
  return byRequest;
}

/** The names of the destinations these rows went to (a deleted one's included). */
export async function destinationNames(db: DbOrTx, organizationId: string, rows: readonly DeliveryRow[]): Promise<Map<string, string>> {
  const ids = [...new Set(rows.map((row) => row.destinationId))];
  if (ids.length === 0) return new Map();
  const found = await db
    .select({ id: destinations.id, name: destinations.name })
    .from(destinations)
    .where(and(eq(destinations.organizationId, organizationId), inArray(destinations.id, ids)));
  return new Map(found.map((row) => [row.id, row.name]));
}

