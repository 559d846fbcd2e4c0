// Whether a stored body holds q's words (lib/search/body-words.ts): the test a search makes of a body, row by
// row or after the body's word index has found it (delivery_payloads_body_by_bucket_words_idx, db/online-indexes.ts).
import { sql, type SQL } from "drizzle-orm";
import { deliveryPayloads } from "@/db/schema";
import { wordsQuery, type ParsedQuery } from "./body-words";

/** What the word index holds of a body (migration 0048): the condition must name it so, for the index to serve it. */
const bodyWordVector = sql`inbox_body_word_vector(${deliveryPayloads.headers}, ${deliveryPayloads.body})`;

/**
 * The payload's body holds every term of q (a prefix by prefix), each term's words in order and adjacent.
 * First the cheap test, q's key in the body's bytes (which every match holds), so that the words are found
 * (the body parsed, COST 1000: PostgreSQL tests it last) only in bodies that may match: a walk tests many.
 * Through the index, a phrase is rechecked on each body it finds (its positions are not in the index).
 */
export function bodyHoldsWords(parsed: ParsedQuery): SQL {
  if (parsed.terms.length === 0) return sql`false`;
  const key = parsed.key ? sql`strpos(lower(encode(${deliveryPayloads.body}, 'escape') collate "C"), ${parsed.key}) > 0 and ` : sql``;
  return sql`(${key}${bodyWordVector} @@ to_tsquery('simple', ${wordsQuery(parsed)}))`;
}

/**
 * While the word index is being built (an upgrade: db/online-indexes.ts builds it, then drops the trigram index),
 * what the trigram index serves: q's key inside the body. Every body that holds q's words holds it, so it finds
 * no fewer; bodyHoldsWords decides. Once the trigram index is gone, a cheap filter of the word index's finds.
 */
export function bodyHoldsKey(parsed: ParsedQuery): SQL {
  if (!parsed.key || parsed.key.length < 3) return sql`true`;
  return sql`encode(${deliveryPayloads.body}, 'escape') ilike ${`%${parsed.key}%`}`;
}
