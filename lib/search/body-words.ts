// q's words, as the body's word index holds a body's (inbox_body_words, db/migrations/0048_word_index.sql): the
// same rules, so that a word of q is a word of the body exactly when the body holds it. Read through the escape
// encoding of the UTF-8 bytes, as a body is (bytes over 0x7F are \ooo, part of a word; only A–Z fold).

/** A word: starts and ends with a letter, a digit or _ (or a byte over 0x7F); @ . + - / : % ? = & # ~ inside. */
const WORD = /(?:[a-z0-9_]|\\[0-7]{3})(?:(?:[a-z0-9_@.+/:%?=&#~-]|\\[0-7]{3})*(?:[a-z0-9_]|\\[0-7]{3}))?/g;
/** Longer words are left out of the index (a base64 blob is one word). */
export const MAX_WORD_LENGTH = 500;

/** PostgreSQL's encode(bytes, 'escape'): zero and bytes over 0x7F as \ooo, a backslash doubled, the rest as is. */
export function escapeEncoding(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) {
    if (byte === 0x5c) out += "\\\\";
    else if (byte === 0 || byte > 0x7f) out += `\\${byte.toString(8).padStart(3, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return out;
}

const lowerAscii = (text: string) => text.replace(/[A-Z]+/g, (run) => run.toLowerCase());

/** The words of a text (not JSON keys, not form-encoded: as a body of another type), in order, lowered. */
export function wordsOf(text: string): string[] {
  const plain = lowerAscii(escapeEncoding(new TextEncoder().encode(text)))
    .replace(/\\\\\//g, "/")
    .replace(/\\\\(?:u[0-9a-f]{4}|[^])/g, " ");
  return (plain.match(WORD) ?? []).filter((word) => word.length <= MAX_WORD_LENGTH);
}

/** One term of q: its words in order (several: a phrase), and whether its last is a prefix (`word*`). */
export interface Term { words: string[]; prefix: boolean }

export interface ParsedQuery {
  terms: Term[];
  /**
   * A run of ASCII letters and digits of one of q's words, the longest: every body that matches holds it as it
   * is (in its escape encoding, ignoring case), whatever was decoded to find the words. None when q's words
   * are all non-ASCII. A cheap test before the
   * words' (which tokenizes the body), and what the trigram index serves while the word index is being built.
   */
  key?: string;
}

/**
 * q as words: "…" in quotes a phrase (its words in order, adjacent), a term ending in * a prefix, several terms
 * all required. A term whose words are joined by other characters (`alice,bob`) is a phrase too.
 */
export function parseQuery(q: string): ParsedQuery {
  const terms: Term[] = [];
  for (const [, quoted, bare] of q.matchAll(/"([^"]*)"?|([^\s"]+)/g)) {
    const text = quoted ?? bare ?? "";
    const prefix = /\*\s*$/.test(text);
    const words = wordsOf(text);
    if (words.length > 0) terms.push({ words, prefix });
  }
  const runs = terms.flatMap((term) => term.words.flatMap((word) => word.replace(/\\[0-7]{3}/g, " ").match(/[a-z0-9]+/g) ?? []));
  const key = runs.reduce<string | undefined>((longest, run) => (!longest || run.length > longest.length ? run : longest), undefined);
  return { terms, key };
}

/** A word as a tsquery operand: quoted, its backslashes escaped; `:*` for a prefix. */
const operand = (word: string, prefix: boolean) => `'${word.replace(/\\/g, "\\\\")}'${prefix ? ":*" : ""}`;

/** The tsquery of every word of every term (the last of a prefix term by prefix), for the word index. */
export function wordsQuery(parsed: ParsedQuery): string {
  return parsed.terms
    .flatMap((term) => term.words.map((word, i) => operand(word, term.prefix && i === term.words.length - 1)))
    .join(" & ");
}

/**
 * Each phrase as it appears in the body's words joined by single spaces, with a space before (and after, unless
 * its last word is a prefix): adjacency, tested on the body after the index has found its words.
 */
export function phrasesOf(parsed: ParsedQuery): string[] {
  return parsed.terms.filter((term) => term.words.length > 1).map((term) => ` ${term.words.join(" ")}${term.prefix ? "" : " "}`);
}
