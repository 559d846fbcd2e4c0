// Search q among an organization's deliveries, newest first (listDeliveries' `q`): what matches, and how it is
// found at a cost bounded both for words in many bodies and for words in few.
import { and, sql, type SQL } from "drizzle-orm";
import { BODY_INDEX_TIME_BUCKET } from "@/db/online-indexes";
import { deliveries, deliveryPayloads } from "@/db/schema";
import type { DbOrTx } from "@/db";
import { config } from "@/lib/config/config";
import { isId, REQUEST_ROW_SEPARATOR, requestIdOf } from "@/lib/ids";
import { before, type Edge, newestFirst, notBefore, nth, page, type Row } from "./deliveries-page";
import { bodyHoldsKey, bodyHoldsWords } from "./body-match";
import { parseQuery } from "./body-words";
import { bucketsAround, inBucketsOf, offClockIds, type SliceTimes } from "./search-buckets";

/** Searchable bodies up to this size are in the word index (delivery_payloads_body_by_bucket_words_idx, db/online-indexes.ts). */
const INDEXED_MAX_BODY_BYTES = 65_536;
/** A search looks through at most this many newest deliveries (that match the filter) by walking them in order. */
const searchWindow = () => config().INBOX_SEARCH_WINDOW;
/** It walks a tenth of them first, to tell whether walking the rest would fill the page. */
const probeSize = (window: number) => Math.max(1, Math.round(window / 10));
/** A nearly full page walks on past the window at most this many times (see searchDeliveries). */
const NEARLY_FULL_STRETCHES = 3;
/** A q this short (`42`) has no trigram for the event type's index: it walks, as a q without a word does. */
const MIN_INDEXED_Q_LENGTH = 3;
/** A q with no word walks at most this many windows a page past the window (see searchDeliveries). */
// 3: an absent q on 10M deliveries, mostly out of memory, took 1.7–4.0 s a page (10 windows: 4.5–6 s).
const SHORT_Q_STRETCH_WINDOWS = 3;
/** A slice spans this many times the time the hits so far predict the rest of the page needs (see indexedMatches). */
const SLICE_MARGIN = 2;
/** A search asks the body index for at most this many time buckets (one GIN scan each, ~30 h); then the rest in one statement. */
const MAX_SLICE_BUCKETS = 64;
/**
 * A slice whose times hold more deliveries off the clock (offClockIds) than this goes to the one statement
 * instead: each is fetched and tested (an organization still holding ids made before they held their time).
 */
const MAX_OFF_CLOCK_IN_SLICE = 500;

/** Every row of request `requestId`: its own id, and its id followed by the separator (one range of the primary key). */
const rowsOfRequest = (requestId: string) =>
  sql`(${deliveries.id} = ${requestId} or (${deliveries.id} > ${requestId + REQUEST_ROW_SEPARATOR} and ${deliveries.id} < ${requestId + String.fromCharCode(REQUEST_ROW_SEPARATOR.charCodeAt(0) + 1)}))`;

const ilikePattern = (q: string) => `%${q.replace(/[%_\\]/g, "\\$&")}%`;

/**
 * This delivery's body holds q: its payload fetched by primary key and tested, row by row. `offset 0` keeps it
 * row by row: an EXISTS without it may be planned as a "hashed SubPlan", one pass over every organization's
 * payloads before the first row (bench/dashboard: ~1 s a search on 300,000 deliveries; search-cost.int.test.ts).
 */
const ownBodyContains = (q: string, idFloor: string, payloadKey: SQL = sql`${deliveries.id}`) =>
  sql`exists (select 1 from ${deliveryPayloads} where ${deliveryPayloads.deliveryId} = ${payloadKey}
    and ${deliveryPayloads.deliveryId} >= ${idFloor} and ${bodyHoldsWords(parseQuery(q))} offset 0)`;

/**
 * `q` matches the external id or the event type ignoring case, or whole words in the body (lib/search/body-words.ts).
 * Exact, per row, no index. The body is fetched (by delivery_payloads' primary key) only for rows whose external
 * id and event type do not match.
 */
function searchWhere(q: string, idFloor: string, payloadKey?: SQL): SQL {
  return sql`(lower(${deliveries.externalId}) = lower(${q}) or ${deliveries.eventType} ilike ${ilikePattern(q)}
    or ${ownBodyContains(q, idFloor, payloadKey)})`;
}

/**
 * The bulk replay's and bury's `q` (API.md "Deliveries": as the list's): every row of a request q matches, each
 * destination's row with its request's body (the payload is the request's: lib/ids.ts). searchWhere's exact
 * test, row by row: a bulk call reads its whole selection anyway. Run in the organization's turn (search-gate.ts).
 */
export function bulkSearchWhere(q: string, idFloor: string): SQL {
  return searchWhere(q, idFloor, sql`split_part(${deliveries.id}, ${REQUEST_ROW_SEPARATOR}, 1)`);
}

/**
 * The same rows as searchWhere, written so that every arm has an index and PostgreSQL can OR their bitmaps:
 * the external id through (organization_id, lower(external_id)); the event type's trigrams; bodies up to 64 KiB through the body's word
 * index in delivery_payloads once the indexer has made them searchable (lib/search/index-bodies.ts; while the
 * word index is being built, the trigram index it replaces, through q's key); those it has not reached yet, each
 * tested, through delivery_payloads_unsearchable_idx; the ids of the organization's payloads found reach
 * deliveries through their primary key (an array computed once, before the scan). Bigger bodies come from
 * deliveries_org_large_body_idx. Every body is one or the other.
 */
function indexedSearchWhere(organizationId: string, idFloor: string, q: string, slice?: SliceTimes): SQL {
  const parsed = parseQuery(q);
  const maxBytes = sql.raw(String(INDEXED_MAX_BODY_BYTES));
  const holding = (where: SQL) => sql`select ${deliveryPayloads.deliveryId} from ${deliveryPayloads}
    where ${deliveryPayloads.organizationId} = ${organizationId} and ${where}
      and ${deliveryPayloads.searchable} and octet_length(${deliveryPayloads.body}) <= ${maxBytes}
      and ${bodyHoldsKey(parsed)} and ${bodyHoldsWords(parsed)}`;
  const searchable = slice
    ? sql.join([...inBucketsOf(slice, idFloor).map(holding), offClockHolding(organizationId, idFloor, q, slice)], sql` union all `)
    : holding(sql`${deliveryPayloads.deliveryId} >= ${idFloor}`);
  return sql`((${deliveries.organizationId} = ${organizationId} and lower(${deliveries.externalId}) = lower(${q}))
    or ${deliveries.eventType} ilike ${ilikePattern(q)}
    or ${deliveries.id} = any(array(
         ${searchable}
         union all
         select ${deliveryPayloads.deliveryId} from ${deliveryPayloads}
         where ${deliveryPayloads.organizationId} = ${organizationId} and ${deliveryPayloads.deliveryId} >= ${idFloor} and not ${deliveryPayloads.searchable}
           and octet_length(${deliveryPayloads.body}) <= ${maxBytes} and ${bodyHoldsWords(parsed)}))
    or (${deliveries.sizeBytes} > ${maxBytes}
        and ${ownBodyContains(q, idFloor)}))`;
}

/** Of the slice's deliveries off the clock (offClockIds), which the buckets around its times miss, those whose body holds q: each tested. */
const offClockHolding = (organizationId: string, idFloor: string, q: string, slice: SliceTimes) =>
  sql`select ${deliveryPayloads.deliveryId} from ${deliveryPayloads}
    where ${deliveryPayloads.deliveryId} = any(array(${offClockIds(organizationId, idFloor, sql`${slice.from}::timestamptz`, sql`${slice.to}::timestamptz`)}))
      and ${deliveryPayloads.deliveryId} >= ${idFloor} and ${bodyHoldsWords(parseQuery(q))}`;

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
 *    a q without a word (lib/search/body-words.ts: `%`, `!!`), or too short for the event type's trigrams, walks on instead, at most
 *    SHORT_Q_STRETCH_WINDOWS windows a page: a page that ends there, full or not, says where the next one
 *    resumes, so a rare short q in a big history costs each request a bounded walk, not the statement timeout.
 * Each split is a fixed (receivedAt, id), so the parts cannot overlap even while deliveries arrive.
 */
export async function searchDeliveries(db: DbOrTx, organizationId: string, idFloor: string, where: SQL, q: string, limit: number): Promise<{ rows: Row[]; resumeAt?: Edge }> {
  // A delivery's own id (what a destination gets as x-inbox-delivery-id), or one of its rows' (`dlv_…:dst_…`):
  // found by primary key. Not found (another organization's, expired, or filtered out): searched as words.
  const requestId = requestIdOf(q.trim());
  if (isId("dlv", requestId)) {
    const rows = await page(db, and(where, rowsOfRequest(requestId)), limit);
    if (rows.length > 0) return { rows };
  }
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
  if (parseQuery(q).terms.length > 0 && q.length >= MIN_INDEXED_Q_LENGTH) {
    const newest = (await nth(db, where, 1))!;
    const seen = { rows: walked, hits: hits.length, newestAt: newest.cursorAt, edge, window };
    return { rows: [...hits, ...(await indexedMatches(db, organizationId, idFloor, older, q, limit - hits.length, seen))] };
  }
  // A q with no word (`%`, `!!`) gives the body's word index nothing to look up, one of 1 or 2 characters the
  // event type's trigram index: that route would scan every organization's payloads or deliveries. The organization's own older deliveries are walked instead, a stretch.
  const stretchEdge = await nth(db, older, SHORT_Q_STRETCH_WINDOWS * window);
  hits.push(...(await page(db, and(older, stretchEdge && notBefore(stretchEdge), searchWhere(q, idFloor)), limit - hits.length)));
  return { rows: hits, resumeAt: hits.length < limit ? stretchEdge : undefined };
}

/**
 * The newest delivery that passes `where`, and how many of the organization's deliveries off the clock
 * (offClockIds) were received in the `reachMs` up to it, counted up to MAX_OFF_CLOCK_IN_SLICE + 1: where the next
 * slice ends, and whether it may ask for those one by one. One statement, as a slice's edge and its size were.
 */
async function nextWithOffClock(db: DbOrTx, organizationId: string, idFloor: string, where: SQL, reachMs: number): Promise<(Edge & { offClock: number }) | undefined> {
  const [row] = await db.execute<{ id: string; cursorAt: string; offClock: number }>(sql`
    select next.id, to_char(next.received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as "cursorAt",
      (select count(*)::int from (${offClockIds(organizationId, idFloor, sql`next.received_at - ${reachMs} * interval '1 millisecond'`, sql`next.received_at`, MAX_OFF_CLOCK_IN_SLICE + 1)}) o) as "offClock"
    from (select ${deliveries.id}, ${deliveries.receivedAt} from ${deliveries} where ${where} order by ${sql.join(newestFirst, sql`, `)} limit 1) next`);
  return row;
}

/** What a search has seen before asking the indexes: the deliveries walked, the hits among them, when the newest of them and the last were received. */
interface Seen { rows: number; hits: number; newestAt: string; edge: Edge; window: number }

/**
 * `wanted` of the deliveries in `older` (newest first, the walk `seen` before them) whose body, external id or
 * event type holds q, through the indexes. Asked for q alone, the body's word index hands over every body of
 * the organization that holds it, each to fetch and test: a word in 0.2 % of 5.5 million bodies is 10,000 rows
 * to read and sort for 50 (~1.1 s with the data mostly out of memory). So while the hits so far (none taken as
 * one) say the rest of the page lies within the buckets left (MAX_SLICE_BUCKETS in all, ~28 min each), the
 * indexes are asked slice by slice of receipt times, newest first, from the next older delivery back: SLICE_MARGIN
 * times the time the hits so far predict, or the time a window's worth of deliveries took while none has been
 * found. A slice's bodies are asked for by the buckets around its times (bucketsAround, one statement each:
 * inBucketsOf), and those of its deliveries whose ids are off the clock by their own index (offClockIds). A slice
 * is never read row by row: its times say which buckets (reading a slice's rows to learn its ids' buckets cost
 * ~146 ms for 165,000 of them on bench/dashboard's 10M). Then, or when the slice holds many deliveries off the
 * clock, what is older goes in one statement from the organization's floor, which costs little then: a q that
 * would not fill the page in that many buckets has few matches an hour, and so few in all. A bucket costs a GIN
 * scan (~1 ms) whatever it holds, about what 30 bodies cost to fetch and test (1M deliveries): where matches are
 * few, fetching them all is cheaper.
 */
async function indexedMatches(db: DbOrTx, organizationId: string, idFloor: string, older: SQL, q: string, wanted: number, seen: Seen): Promise<Row[]> {
  const found: Row[] = [];
  let rest = older;
  let hits = seen.hits;
  const newestMs = Date.parse(seen.newestAt);
  let lastMs = Date.parse(seen.edge.cursorAt);
  const windowMs = ((newestMs - lastMs) * seen.window) / Math.max(1, seen.rows);
  let bucketsLeft = MAX_SLICE_BUCKETS;
  for (;;) {
    const missing = wanted - found.length;
    // The time the rest of the page needs at the hits' rate so far (none taken as one), with the margin: a slice
    // of it takes at least this many buckets, wherever it ends (bucketsAround). Past those left, the one statement.
    const predictedMs = SLICE_MARGIN * ((missing * (newestMs - lastMs)) / Math.max(1, hits));
    if (Math.floor(predictedMs / BODY_INDEX_TIME_BUCKET.ms) + 3 > bucketsLeft) break;
    const spanMs = hits ? predictedMs : Math.min(predictedMs, windowMs);
    // The slice ends at the next older delivery, so that a quiet stretch costs no bucket.
    const next = await nextWithOffClock(db, organizationId, idFloor, rest, spanMs + BODY_INDEX_TIME_BUCKET.ms);
    if (!next) return found;
    if (next.offClock > MAX_OFF_CLOCK_IN_SLICE) break;
    const toMs = Date.parse(next.cursorAt);
    // Whole buckets of receipts at least: a bucket costs a GIN scan whatever part of it a slice asks for.
    const fromMs = Math.min(Math.floor(toMs - spanMs), Math.floor(toMs / BODY_INDEX_TIME_BUCKET.ms) * BODY_INDEX_TIME_BUCKET.ms);
    const buckets = bucketsAround(fromMs, toMs);
    if (buckets.length > bucketsLeft) break;
    const slice: SliceTimes = { from: new Date(fromMs).toISOString(), to: next.cursorAt, buckets };
    const inSlice = sql`${deliveries.receivedAt} >= ${slice.from}::timestamptz`;
    const matches = await page(db, and(rest, inSlice, indexedSearchWhere(organizationId, idFloor, q, slice)), missing);
    found.push(...matches);
    if (found.length === wanted) return found;
    rest = and(rest, sql`${deliveries.receivedAt} < ${slice.from}::timestamptz`)!;
    hits += matches.length;
    lastMs = fromMs;
    bucketsLeft -= buckets.length;
  }
  found.push(...(await page(db, and(rest, indexedSearchWhere(organizationId, idFloor, q)), wanted - found.length)));
  return found;
}
