// Search q among an organization's deliveries, newest first (listDeliveries' `q`): what matches, and how it is
// found at a cost bounded both for words in many bodies and for words in few.
import { and, sql, type SQL } from "drizzle-orm";
import { BODY_INDEX_TIME_BUCKET } from "@/db/online-indexes";
import { deliveries, deliveryPayloads } from "@/db/schema";
import type { DbOrTx } from "@/db";
import { before, type Edge, newestFirst, notBefore, nth, page, type Row } from "./deliveries-page";
import { bucketsBetween, inBucketsOf, type SliceIds } from "./search-buckets";

/** Searchable bodies up to this size are in the trigram index (delivery_payloads_body_by_bucket_trgm_idx, db/online-indexes.ts). */
const TRIGRAM_MAX_BODY_BYTES = 65_536;
/** A search looks through at most this many newest deliveries (that match the filter) by walking them in order. */
const searchWindow = () => Number(process.env.INBOX_SEARCH_WINDOW ?? 10_000);
/** It walks a tenth of them first, to tell whether walking the rest would fill the page. */
const probeSize = (window: number) => Math.max(1, Math.round(window / 10));
/** A nearly full page walks on past the window at most this many times (see searchDeliveries). */
const NEARLY_FULL_STRETCHES = 3;
/** A q with no trigram walks at most this many windows a page past the window (see searchDeliveries). */
// 3: an absent q on 10M deliveries, mostly out of memory, took 1.7–4.0 s a page (10 windows: 4.5–6 s).
const SHORT_Q_STRETCH_WINDOWS = 3;
/** A slice holds this many times the deliveries the hits so far predict the rest of the page needs (see indexedMatches). */
const SLICE_MARGIN = 2;
/** No slice holds fewer deliveries: each costs two statements, and a smaller one spares only index entries (~1 µs each). */
const MIN_SLICE_ROWS = 1_000;
/** A search asks the body index for at most this many time buckets (one GIN scan each, ~30 h); then the rest in one statement. */
const MAX_SLICE_BUCKETS = 64;

const ilikePattern = (q: string) => `%${q.replace(/[%_\\]/g, "\\$&")}%`;

// Case folding of the body: ASCII letters only. body is bytea and need not be UTF-8 (or text at all), so it is
// folded through its escape encoding (plain ASCII: bytes over 0x7F become \ooo, which lower() leaves alone),
// lowered under the "C" collation (A–Z only, whatever the database's locale), and decoded back to the same
// bytes with A–Z lowered. q's side: lower() under "C" too, so "É" in q still matches only "É" in a body.
const foldedQ = (q: string) => sql`convert_to(lower(${q} collate "C"), 'UTF8')`;
const foldedBody = (body: SQL) => sql`decode(lower(encode(${body}, 'escape') collate "C"), 'escape')`;
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
const bodyContains = (q: string, body: SQL) =>
  startsOnAToken(q)
    ? sql`strpos(${loweredEscape(body)}, ${loweredEscape(sql`convert_to(${q}, 'UTF8')`)}) > 0`
    : sql`position(${foldedQ(q)} in ${foldedBody(body)}) > 0`;
const payloadBody = sql`${deliveryPayloads.body}`;

/**
 * This delivery's body holds q: its payload fetched by primary key and tested, row by row. `offset 0` keeps it
 * row by row: an EXISTS without it may be planned as a "hashed SubPlan", one pass over every organization's
 * payloads before the first row (bench/dashboard: ~1 s a search on 300,000 deliveries; search-cost.int.test.ts).
 */
const ownBodyContains = (q: string, idFloor: string) =>
  sql`exists (select 1 from ${deliveryPayloads} where ${deliveryPayloads.deliveryId} = ${deliveries.id}
    and ${deliveryPayloads.deliveryId} >= ${idFloor} and ${bodyContains(q, payloadBody)} offset 0)`;

/**
 * `q` matches the external id or the event type ignoring case, or bytes inside the body ignoring the case of
 * ASCII letters. Exact, cheap per row, no index. The body is fetched (by delivery_payloads' primary key) only
 * for rows whose external id and event type do not match.
 */
function searchWhere(q: string, idFloor: string): SQL {
  return sql`(lower(${deliveries.externalId}) = lower(${q}) or ${deliveries.eventType} ilike ${ilikePattern(q)}
    or ${ownBodyContains(q, idFloor)})`;
}

/**
 * The same rows as searchWhere, written so that every arm has an index and PostgreSQL can OR their bitmaps:
 * the external id through (organization_id, lower(external_id)); the event type's trigrams; bodies up to
 * 64 KiB through the trigrams of encode(body, 'escape') in delivery_payloads, which pg_trgm keeps case-folded,
 * so ILIKE is served by it (q's bytes in the body, ASCII case aside, put q's escape encoding in the body's: that
 * ILIKE is implied by the exact test, which stays to decide, since a \ooo can also match across bytes), once the
 * indexer has made them searchable (lib/delivery/index-bodies.ts); those it has not reached yet, each tested, through
 * delivery_payloads_unsearchable_idx; the ids of the organization's payloads found reach deliveries through
 * their primary key (an array computed once, before the scan). Bigger bodies come from
 * deliveries_org_large_body_idx. Every body is one or the other.
 */
function indexedSearchWhere(organizationId: string, idFloor: string, q: string, key: string, slice?: SliceIds): SQL {
  const escaped = sql`replace(replace(replace(encode(convert_to(${key}, 'UTF8'), 'escape'), '\\', '\\\\'), '%', '\\%'), '_', '\\_')`;
  const maxBytes = sql.raw(String(TRIGRAM_MAX_BODY_BYTES));
  const holding = (where: SQL) => sql`select ${deliveryPayloads.deliveryId} from ${deliveryPayloads}
    where ${deliveryPayloads.organizationId} = ${organizationId} and ${where}
      and ${deliveryPayloads.searchable} and octet_length(${deliveryPayloads.body}) <= ${maxBytes}
      and encode(${deliveryPayloads.body}, 'escape') ilike '%' || ${escaped} || '%' and ${bodyContains(q, payloadBody)}`;
  const searchable = slice
    ? sql.join(inBucketsOf(slice, idFloor).map(holding), sql` union all `)
    : holding(sql`${deliveryPayloads.deliveryId} >= ${idFloor}`);
  return sql`((${deliveries.organizationId} = ${organizationId} and lower(${deliveries.externalId}) = lower(${q}))
    or ${deliveries.eventType} ilike ${ilikePattern(q)}
    or ${deliveries.id} = any(array(
         ${searchable}
         union all
         select ${deliveryPayloads.deliveryId} from ${deliveryPayloads}
         where ${deliveryPayloads.organizationId} = ${organizationId} and ${deliveryPayloads.deliveryId} >= ${idFloor} and not ${deliveryPayloads.searchable}
           and octet_length(${deliveryPayloads.body}) <= ${maxBytes} and ${bodyContains(q, payloadBody)}))
    or (${deliveries.sizeBytes} > ${maxBytes}
        and ${ownBodyContains(q, idFloor)}))`;
}

/**
 * What the body's trigram index is asked for: q's longest run of ASCII letters and digits (3 or more). Any body
 * holding q holds the run, and the exact test decides. It spares the index the trigrams a search shares with
 * every body: for `user142518@example.com` it reads `user142518`'s posting lists and not those of `example` and
 * `com`, 20 ms instead of 100 on a million deliveries, finding the same bodies. None when q has no such run.
 */
function trigramKey(q: string): string | undefined {
  const runs = q.match(/[A-Za-z0-9]{3,}/g) ?? [];
  return runs.reduce<string | undefined>((longest, run) => (!longest || run.length > longest.length ? run : longest), undefined);
}

/**
 * Search, newest first, with a cost bounded both for words in many bodies and for words in few. Testing a
 * body costs about as much whether the walk reaches it or an index hands it over, so a search tests as few as
 * it can:
 * 1. the newest tenth of the INBOX_SEARCH_WINDOW (default 10,000) deliveries that pass the filter are walked
 *    in index order and each tested (a common word fills the page here);
 * 2. when their hits say the rest of the window would fill the page, it is walked too;
 *    if the page is then nearly full, the walk goes on in a few stretches (see below);
 * 3. otherwise, or if the page is still not full, the indexes are asked for the older matches (a rare word:
 *    few rows to fetch; a word in 0.2 % of the bodies: 2,000 rows from the index, not 9,000 walked for 18 hits);
 *    a q without three letters or digits in a row has no trigram to ask for, and walks on instead, at most
 *    SHORT_Q_STRETCH_WINDOWS windows a page: a page that ends there, full or not, says where the next one
 *    resumes, so a rare short q in a big history costs each request a bounded walk, not the statement timeout.
 * Each split is a fixed (receivedAt, id), so the parts cannot overlap even while deliveries arrive.
 */
export async function searchDeliveries(db: DbOrTx, organizationId: string, idFloor: string, where: SQL, q: string, limit: number): Promise<{ rows: Row[]; resumeAt?: Edge }> {
  const window = searchWindow();
  const probe = probeSize(window);
  const probeEdge = await nth(db, where, probe);
  const hits = await page(db, and(where, probeEdge && notBefore(probeEdge), searchWhere(q, idFloor)), limit);
  if (hits.length === limit || !probeEdge) return { rows: hits };
  let edge = probeEdge;
  let walked = probe;
  const rowsToFill = hits.length ? ((limit - hits.length) / hits.length) * probe : Infinity;
  if (window > probe && rowsToFill <= window - probe) {
    const windowEdge = await nth(db, where, window);
    const older = before(probeEdge.cursorAt, probeEdge.id);
    hits.push(...(await page(db, and(where, older, windowEdge && notBefore(windowEdge), searchWhere(q, idFloor)), limit - hits.length)));
    if (hits.length === limit || !windowEdge) return { rows: hits };
    edge = windowEdge;
    walked = window;
    // Nearly full: the last few hits are most likely just past the window, and walking on to them tests fewer
    // bodies than the index hands over, which is every older match in the organization (a ~0.5 % word on 10M
    // deliveries: 31,846 matches fetched and sorted, 9 s, for the page's last row). So it walks on in stretches
    // four times as long as the hits so far predict, up to NEARLY_FULL_STRETCHES of them and two more windows in all.
    for (let stretch = 0; stretch < NEARLY_FULL_STRETCHES; stretch++) {
      const beyond = Math.ceil(((limit - hits.length) / hits.length) * walked * 4);
      if (walked + beyond > window * 3) break;
      const past = and(where, before(edge.cursorAt, edge.id))!;
      const beyondEdge = await nth(db, past, beyond);
      hits.push(...(await page(db, and(past, beyondEdge && notBefore(beyondEdge), searchWhere(q, idFloor)), limit - hits.length)));
      if (hits.length === limit || !beyondEdge) return { rows: hits };
      edge = beyondEdge;
      walked += beyond;
    }
  }
  const older = and(where, before(edge.cursorAt, edge.id))!;
  const key = trigramKey(q);
  if (key) {
    const seen = { rows: walked, hits: hits.length, edgeAt: edge.cursorAt, window };
    return { rows: [...hits, ...(await indexedMatches(db, organizationId, idFloor, older, q, key, limit - hits.length, seen))] };
  }
  // A q with no trigram key (`zq`, `ü`, `%`) gives the body's trigram index nothing to look up: that route would
  // scan every organization's payloads. The organization's own older deliveries are walked instead, a stretch.
  const stretchEdge = await nth(db, older, SHORT_Q_STRETCH_WINDOWS * window);
  hits.push(...(await page(db, and(older, stretchEdge && notBefore(stretchEdge), searchWhere(q, idFloor)), limit - hits.length)));
  return { rows: hits, resumeAt: hits.length < limit ? stretchEdge : undefined };
}

interface Slice { edge: Edge; rows: number; low: string; high: string; spanMs: number; more: boolean }

/**
 * The newest `size` deliveries that pass `where` received at `since` or later: the last of them (where the next
 * slice begins), how many there are, their least and greatest ids, the time between their first and last, and
 * whether `where` holds any older. An id's time is the app's clock when ingest made it and received_at the
 * database's at commit, so the bounds are read off the slice's own rows, never guessed from its times.
 * "Any older" is the list index's next entry, asked for in order: as an EXISTS, whose order PostgreSQL drops,
 * it scanned the partition, the other organizations' rows before this one's first (4,100 in search-cost's
 * test; a whole week's on a big database). The slice's edge comes before `where`, whose own bound is newer: of
 * two row comparisons on a column, the btree scan starts at the first (the other way round, it walked back over
 * the slice's entries: 216 pages, 1.6 ms on 1M; 10 pages now).
 */
async function sliceOf(db: DbOrTx, where: SQL, since: string, size: number): Promise<Slice | undefined> {
  const [row] = await db.execute<{ rows: number; low: string; high: string; edge_id: string; edge_at: string; span_ms: number; more: boolean }>(sql`
    with slice as materialized (
      select ${deliveries.id} as slice_id, ${deliveries.receivedAt} as slice_at from ${deliveries}
      where ${where} and ${deliveries.receivedAt} >= ${since}::timestamptz order by ${sql.join(newestFirst, sql`, `)} limit ${size}),
    edge as (select slice_id as edge_id, slice_at as edge_at from slice order by slice_at, slice_id limit 1)
    select count(*)::int as rows, min(slice_id) as low, max(slice_id) as high,
           (select edge_id from edge) as edge_id,
           (select to_char(edge_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') from edge) as edge_at,
           (extract(epoch from max(slice_at) - min(slice_at)) * 1000)::float8 as span_ms,
           coalesce((select true from ${deliveries}
             where (${deliveries.receivedAt}, ${deliveries.id}) < ((select edge_at from edge), (select edge_id from edge)) and ${where}
             order by ${sql.join(newestFirst, sql`, `)} limit 1), false) as more
    from slice`);
  if (!row || !row.rows) return undefined;
  return { edge: { id: row.edge_id, cursorAt: row.edge_at }, rows: row.rows, low: row.low, high: row.high, spanMs: row.span_ms, more: row.more };
}

/** What a search has seen before asking the indexes: the deliveries walked, the hits among them, where the walk ended. */
interface Seen { rows: number; hits: number; edgeAt: string; window: number }

/**
 * `wanted` of the deliveries in `older` (newest first, the walk `seen` before them) whose body, external id or
 * event type holds q, through the indexes. Asked for q alone, the body's trigram index hands over every body of
 * the organization that holds it, each to fetch and test: a word in 0.2 % of 5.5 million bodies is 10,000 rows
 * to read and sort for 50 (~1.1 s with the data mostly out of memory). So while the hits so far (none taken as
 * one) say the rest of the page lies within the buckets left (MAX_SLICE_BUCKETS in all; a bucket holds what the
 * slice read shows ~28 min holds), the indexes are asked slice by slice, newest first, for the bodies of the
 * slice's time buckets only (inBucketsOf): SLICE_MARGIN times the deliveries predicted, or a window's worth
 * while none has been found. Then, or at an id made before ids held their time, what is older goes in one
 * statement from the organization's floor, which costs little then: a q that would not fill the page in that
 * many buckets has few matches an hour, and so few in all. A bucket costs a GIN scan (~1 ms) whatever it holds,
 * about what 30 bodies cost to fetch and test (1M deliveries): where matches are few, fetching them all is cheaper.
 */
async function indexedMatches(db: DbOrTx, organizationId: string, idFloor: string, older: SQL, q: string, key: string, wanted: number, seen: Seen): Promise<Row[]> {
  const found: Row[] = [];
  let rest = older;
  let { rows: seenRows, hits: seenHits } = seen;
  let edgeMs = Date.parse(seen.edgeAt);
  let bucketsLeft = MAX_SLICE_BUCKETS;
  // The deliveries a bucket holds, at the last slice's rate (none before the first): while the rest of the page
  // is predicted past the buckets left, it goes in one statement, before another slice is read.
  let rowsPerBucket: number | undefined;
  const withinBuckets = (toFill: number) => rowsPerBucket === undefined || (SLICE_MARGIN * toFill) / rowsPerBucket <= bucketsLeft;
  while (bucketsLeft > 0) {
    const missing = wanted - found.length;
    const toFill = (missing * seenRows) / Math.max(1, seenHits);
    if (!withinBuckets(toFill)) break;
    const since = new Date(edgeMs - bucketsLeft * BODY_INDEX_TIME_BUCKET.ms).toISOString();
    const slice = await sliceOf(db, rest, since, Math.max(MIN_SLICE_ROWS, seenHits ? Math.ceil(SLICE_MARGIN * toFill) : seen.window));
    if (!slice) break;
    rowsPerBucket = (slice.rows / Math.max(1, slice.spanMs)) * BODY_INDEX_TIME_BUCKET.ms;
    const buckets = withinBuckets(toFill) ? bucketsBetween(slice.low, slice.high, bucketsLeft) : undefined;
    if (!buckets) break;
    const matches = await page(db, and(rest, notBefore(slice.edge), indexedSearchWhere(organizationId, idFloor, q, key, { ...slice, buckets })), missing);
    found.push(...matches);
    if (found.length === wanted || !slice.more) return found;
    rest = and(rest, before(slice.edge.cursorAt, slice.edge.id))!;
    edgeMs = Date.parse(slice.edge.cursorAt);
    seenRows += slice.rows;
    seenHits += matches.length;
    bucketsLeft -= buckets.length;
  }
  found.push(...(await page(db, and(rest, indexedSearchWhere(organizationId, idFloor, q, key)), wanted - found.length)));
  return found;
}
