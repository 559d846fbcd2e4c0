// q as words, for the body's word index (inbox_body_word_vector, db/migrations/0048_word_index.sql): PostgreSQL's
// text search parser ('simple') finds the words of both, so a q's term is found where the body holds its words
// in the same order and adjacent (an id's, an e-mail address's, a URL's parts), the last by prefix for `word*`.

/** One term of q: a word, an id, an address (words joined by punctuation), or a quoted phrase; `*` at its end a prefix. */
export interface Term { text: string; prefix: boolean }

export interface ParsedQuery {
  /** Its terms that hold a letter or a digit (the others have no word to find). */
  terms: Term[];
  /**
   * A run of ASCII letters and digits of one of q's terms, the longest, lowered: every body that matches holds
   * it as it is (ignoring case), whatever the index decoded to find the words (JSON escapes, a form's %xx). A
   * cheap test before the words' (which parses the body), and what the trigram index serves while the word
   * index is being built. None when q's terms have no ASCII letter or digit.
   */
  key?: string;
}

/**
 * q as terms: "…" in quotes a phrase (its words in order, adjacent), a term ending in * a prefix, several terms
 * all required. A term whose words are joined by other characters (`cus_Nffr`, `alice@example.com`) is a phrase
 * of them too: the parser splits it as it splits the body.
 */
export function parseQuery(q: string): ParsedQuery {
  const terms: Term[] = [];
  for (const [, quoted, bare] of q.matchAll(/"([^"]*)"?|([^\s"]+)/g)) {
    const text = quoted ?? bare ?? "";
    const prefix = /\*\s*$/.test(text);
    const words = text.replace(/\*+\s*$/, "").trim();
    if (/[\p{L}\p{N}]/u.test(words)) terms.push({ text: words, prefix });
  }
  const runs = terms.flatMap((term) => term.text.toLowerCase().match(/[a-z0-9]+/g) ?? []);
  const key = runs.reduce<string | undefined>((longest, run) => (!longest || run.length > longest.length ? run : longest), undefined);
  return { terms, key };
}

/**
 * The text of to_tsquery('simple', …) for q's terms, all required: each quoted (the parser makes a phrase of
 * its words), a prefix term with :* (each of its words by prefix: `cus_Nff*` is 'cus':* <-> 'nff':*). @ < > ( )
 * are spaces, as the body's are (migration 0048).
 */
export function wordsQuery(parsed: ParsedQuery): string {
  return parsed.terms
    .map((term) => `'${term.text.replace(/[@<>()]/g, " ").replace(/['\\]/g, "\\$&")}'${term.prefix ? ":*" : ""}`)
    .join(" & ");
}
