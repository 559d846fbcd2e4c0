// Search q among an organization's deliveries, newest first (listDeliveries' `q`): what matches, and how it is
// found at a cost bounded both for words in many bodies and for words in few.
import { and, sql, type SQL } from "drizzle-orm";
import { deliveries, deliveryPayloads } from "@/db/schema";
import type { DbOrTx } from "@/db";
import { before, type Edge, notBefore, nth, page, type Row } from "./deliveries-page";

/** Searchable bodies up to this size are in the trigram index (delivery_payloads_body_by_time_trgm_idx, db/online-indexes.ts). */
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
function indexedSearchWhere(organizationId: string, idFloor: string, q: string, key: string): SQL {
  const escaped = sql`replace(replace(replace(encode(convert_to(${key}, 'UTF8'), 'escape'), '\\', '\\\\'), '%', '\\%'), '_', '\\_')`;
  const maxBytes = sql.raw(String(TRIGRAM_MAX_BODY_BYTES));
  return sql`((${deliveries.organizationId} = ${organizationId} and lower(${deliveries.externalId}) = lower(${q}))
    or ${deliveries.eventType} ilike ${ilikePattern(q)}
    or ${deliveries.id} = any(array(
         select ${deliveryPayloads.deliveryId} from ${deliveryPayloads}
         where ${deliveryPayloads.organizationId} = ${organizationId} and ${deliveryPayloads.deliveryId} >= ${idFloor}
           and ${deliveryPayloads.searchable} and octet_length(${deliveryPayloads.body}) <= ${maxBytes}
           and encode(${deliveryPayloads.body}, 'escape') ilike '%' || ${escaped} || '%' and ${bodyContains(q, payloadBody)}
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
  const rowsToFill = hits.length ? ((limit - hits.length) / hits.length) * probe : Infinity;
  if (window > probe && rowsToFill <= window - probe) {
    const windowEdge = await nth(db, where, window);
    const older = before(probeEdge.cursorAt, probeEdge.id);
    hits.push(...(await page(db, and(where, older, windowEdge && notBefore(windowEdge), searchWhere(q, idFloor)), limit - hits.length)));
    if (hits.length === limit || !windowEdge) return { rows: hits };
    edge = windowEdge;
    let walked = window;
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
  if (key) return { rows: [...hits, ...(await page(db, and(older, indexedSearchWhere(organizationId, idFloor, q, key)), limit - hits.length))] };
  // A q with no trigram key (`zq`, `ü`, `%`) gives the body's trigram index nothing to look up: that route would
  // scan every organization's payloads. The organization's own older deliveries are walked instead, a stretch.
  const stretchEdge = await nth(db, older, SHORT_Q_STRETCH_WINDOWS * window);
  hits.push(...(await page(db, and(older, stretchEdge && notBefore(stretchEdge), searchWhere(q, idFloor)), limit - hits.length)));
  return { rows: hits, resumeAt: hits.length < limit ? stretchEdge : undefined };
}
