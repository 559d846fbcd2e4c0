// A page of an organization's deliveries, newest first, keyset-paginated on (receivedAt, id) with microsecond
// precision: the statements the list (lib/delivery/list-deliveries.ts) and the search (search-deliveries.ts) share.
import { getTableColumns, sql, type SQL } from "drizzle-orm";
import { deliveries } from "@/db/schema";
import type { DbOrTx } from "@/db";

const summaryColumns = getTableColumns(deliveries);
const cursorAt = sql<string>`to_char(${deliveries.receivedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
// Newest first. NULLS LAST (the columns are NOT NULL, so the order is the same) is how the indexes are
// built (drizzle's .desc()); a plain `desc` means NULLS FIRST and could not walk them.
export const newestFirst = [sql`${deliveries.receivedAt} desc nulls last`, sql`${deliveries.id} desc nulls last`];

/** Deliveries after (older than) the one received at `at` (cursor text) with id `id`. */
export const before = (at: string, id: string) => sql`(${deliveries.receivedAt}, ${deliveries.id}) < (${at}::timestamptz, ${id})`;

/** Up to `limit` deliveries that pass `where`, newest first, each with its cursor text. */
export function page(db: DbOrTx, where: SQL | undefined, limit: number) {
  return db.select({ ...summaryColumns, cursorAt }).from(deliveries).where(where).orderBy(...newestFirst).limit(limit);
}

export type Row = Awaited<ReturnType<typeof page>>[number];

/** Where a stretch of deliveries ends: the last one's id and cursor text. */
export type Edge = { id: string; cursorAt: string };

/** The n-th delivery (newest first) that passes `where`, or none when fewer pass. */
export async function nth(db: DbOrTx, where: SQL, n: number): Promise<Edge | undefined> {
  const [edge] = await db.select({ id: deliveries.id, cursorAt }).from(deliveries).where(where).orderBy(...newestFirst).offset(n - 1).limit(1);
  return edge;
}

/** The delivery `edge` and those after it. */
export const notBefore = (edge: Edge) => sql`(${deliveries.receivedAt}, ${deliveries.id}) >= (${edge.cursorAt}::timestamptz, ${edge.id})`;
