import { and, getTableColumns, sql, type SQL } from "drizzle-orm";
import { deliveries } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import type { DbOrTx } from "@/db";
import { decodeCursor, encodeCursor, pageLimit } from "@/lib/pagination";
import { deliveryFilterWhere, type DeliveryFilter } from "./delivery-filter";
import { presentDeliverySummary, type DeliverySummary } from "./presentation/present-delivery";

const { body: _body, headers: _headers, ...summaryColumns } = getTableColumns(deliveries);
const cursorAt = sql<string>`to_char(${deliveries.receivedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
// Newest first. NULLS LAST (the columns are NOT NULL, so the order is the same) is how the indexes are
// built (drizzle's .desc()); a plain `desc` means NULLS FIRST and could not walk them.
const newestFirst = [sql`${deliveries.receivedAt} desc nulls last`, sql`${deliveries.id} desc nulls last`];

/** Delivered/dead bodies up to this size are in the trigram index (db/migrations/0004_search_trigram_and_counter_triggers.sql). */
const TRIGRAM_MAX_BODY_BYTES = 65_536;
/** A search first looks through this many newest deliveries (that match the filter) by walking them in order. */
const searchWindow = () => Number(process.env.INBOX_SEARCH_WINDOW ?? 10_000);

const ilikePattern = (q: string) => `%${q.replace(/[%_\\]/g, "\\$&")}%`;

// Case folding of the body: ASCII letters only. body is bytea and need not be UTF-8 (or text at all), so it is
// folded through its escape encoding (plain ASCII: bytes over 0x7F become \ooo, which lower() leaves alone),
// lowered under the "C" collation (A–Z only, whatever the database's locale), and decoded back to the same
// bytes with A–Z lowered. q's side: lower() under "C" too, so "É" in q still matches only "É" in a body.
const foldedQ = (q: string) => sql`convert_to(lower(${q} collate "C"), 'UTF8')`;
const foldedBody = sql`decode(lower(encode(${deliveries.body}, 'escape') collate "C"), 'escape')`;
const loweredEscape = (value: SQL) => sql`lower(encode(${value}, 'escape') collate "C")`;
/**
 * Escape encodings are sequences of tokens: a character, \\ (a backslash), or \ooo (three octal digits). A match
 * of q's encoding inside the body's can start mid-token only at a backslash or a digit; when q's first character
 * is neither (nor non-ASCII, encoded as \ooo), every match starts on a token and so is q's bytes in the body's.
 */
const startsOnAToken = (q: string) => !/^[0-9\\\u0080-\u{10ffff}]/u.test(q);
/**
 * The bytes of q inside the body, ignoring the case of ASCII letters: the exact test, no index. Per row, it
 * costs several times a plain position(); the text search of the lowered encodings spares the decode and
 * finds faster than position() on bytea, so it is used wherever it is exact (most searches).
 */
const bodyContains = (q: string) =>
  startsOnAToken(q)
    ? sql`strpos(${loweredEscape(sql`${deliveries.body}`)}, ${loweredEscape(sql`convert_to(${q}, 'UTF8')`)}) > 0`
    : sql`position(${foldedQ(q)} in ${foldedBody}) > 0`;

/**
 * `q` matches the external id or the event type ignoring case, or bytes inside the body ignoring the case of
 * ASCII letters. Exact, cheap per row, no index.
 */
function searchWhere(q: string): SQL {
  return sql`(lower(${deliveries.externalId}) = lower(${q}) or ${deliveries.eventType} ilike ${ilikePattern(q)}
    or ${bodyContains(q)})`;
}

/**
 * The same rows as searchWhere, written so that every arm has an index and PostgreSQL can OR their bitmaps:
 * the external id through (organization_id, lower(external_id)); the event type's trigrams; for the body, the
 * trigrams of encode(body, 'escape'), which pg_trgm keeps case-folded, so ILIKE is served by it (q's bytes in
 * the body, ASCII case aside, put q's escape encoding in the body's: that ILIKE is implied by the exact test,
 * which stays to decide, since a \ooo can also match across bytes). That index holds delivered and dead deliveries up to 64 KiB; the backlog
 * (pending, delivering) and bigger bodies come from their own partial indexes. A delivery's status is one of
 * the four.
 */
function indexedSearchWhere(organizationId: string, q: string): SQL {
  const escaped = sql`replace(replace(replace(encode(convert_to(${q}, 'UTF8'), 'escape'), '\\', '\\\\'), '%', '\\%'), '_', '\\_')`;
  const maxBytes = sql.raw(String(TRIGRAM_MAX_BODY_BYTES));
  return sql`((${deliveries.organizationId} = ${organizationId} and lower(${deliveries.externalId}) = lower(${q}))
    or ${deliveries.eventType} ilike ${ilikePattern(q)}
    or (${bodyContains(q)}
        and ((${deliveries.status} in ('delivered', 'dead') and ${deliveries.sizeBytes} <= ${maxBytes} and encode(${deliveries.body}, 'escape') ilike '%' || ${escaped} || '%')
             or ${deliveries.status} in ('pending', 'delivering')
             or ${deliveries.sizeBytes} > ${maxBytes})))`;
}

const before = (at: string, id: string) => sql`(${deliveries.receivedAt}, ${deliveries.id}) < (${at}::timestamptz, ${id})`;

function page(db: DbOrTx, where: SQL | undefined, limit: number) {
  return db.select({ ...summaryColumns, cursorAt }).from(deliveries).where(where).orderBy(...newestFirst).limit(limit);
}

type Row = Awaited<ReturnType<typeof page>>[number];

/**
 * Search, newest first, with a cost bounded both for words in many bodies and for words in few. The
 * INBOX_SEARCH_WINDOW-th (default 10,000) newest delivery that passes the filter splits the deliveries in two:
 * 1. the newer ones are walked in index order and each tested (a common word fills the page here);
 * 2. only if the page is not full are the indexes asked for the older matches (a rare word: few rows to fetch).
 * The split is a fixed (receivedAt, id), so the parts cannot overlap even while deliveries arrive.
 */
async function search(db: DbOrTx, organizationId: string, where: SQL, q: string, limit: number): Promise<Row[]> {
  const [edge] = await db.select({ id: deliveries.id, cursorAt }).from(deliveries).where(where).orderBy(...newestFirst)
    .offset(searchWindow() - 1).limit(1);
  const newer = edge ? sql`(${deliveries.receivedAt}, ${deliveries.id}) >= (${edge.cursorAt}::timestamptz, ${edge.id})` : undefined;
  const hits = await page(db, and(where, newer, searchWhere(q)), limit);
  if (hits.length === limit || !edge) return hits;
  return [...hits, ...(await page(db, and(where, before(edge.cursorAt, edge.id), indexedSearchWhere(organizationId, q)), limit - hits.length))];
}

/** Newest first, keyset-paginated on (receivedAt, id) with microsecond precision. */
export async function listDeliveries({ ctx, input }: { ctx: Ctx; input: DeliveryFilter & { q?: string; limit?: unknown; cursor?: string | null } }) {
  const limit = pageLimit(input.limit);
  const cursor = decodeCursor(input.cursor, "dlv");
  const where = and(deliveryFilterWhere(ctx.organizationId, input), cursor ? before(cursor.atText, cursor.id) : undefined)!;
  const rows = input.q ? await search(ctx.db, ctx.organizationId, where, input.q, limit + 1) : await page(ctx.db, where, limit + 1);
  const last = rows.slice(0, limit).at(-1);
  return {
    data: rows.slice(0, limit).map(presentDeliverySummary) as DeliverySummary[],
    nextCursor: rows.length > limit && last ? encodeCursor(last.cursorAt, last.id) : null,
  };
}
