// q's words are found by the rules the body's word index uses (inbox_body_words, migration 0048): ids, e-mail
// addresses, URLs, numbers and dotted types whole; punctuation around words left out; only A–Z fold.
import { describe, expect, it } from "vitest";
import { escapeEncoding, parseQuery, phrasesOf, wordsOf, wordsQuery } from "./body-words";

describe("wordsOf", () => {
  it("keeps ids, e-mail addresses, URLs, numbers and dotted types whole, lowered", () => {
    expect(wordsOf("Customer cus_NffrFeUfNV2Hib paid; mail Alice@Example.com, see https://example.com/a?b=1&c=2. (invoice.paid) -12.50"))
      .toEqual(["customer", "cus_nffrfeufnv2hib", "paid", "mail", "alice@example.com", "see", "https://example.com/a?b=1&c=2", "invoice.paid", "12.50"]);
  });
  it("drops punctuation at a word's ends, and splits on quotes, brackets, commas, spaces", () => {
    expect(wordsOf(`"order.", [x,y] {z} <a> 'b'`)).toEqual(["order", "x", "y", "z", "a", "b"]);
    expect(wordsOf("...--//")).toEqual([]);
  });
  it("reads text as its UTF-8 bytes' escape encoding: non-ASCII is part of a word, not folded", () => {
    expect(escapeEncoding(new TextEncoder().encode("é\\\0a"))).toBe("\\303\\251\\\\\\000a");
    expect(wordsOf("Café ZÜRICH")).toEqual(["caf\\303\\251", "z\\303\\234rich"]);
  });
  it("reads JSON escapes as the index does: \\/ is /, others part words", () => {
    expect(wordsOf("https:\\/\\/x.com\\/p line\\nnext \\u00e9t\\u00e9")).toEqual(["https://x.com/p", "line", "next", "t"]);
  });
  it("leaves out words longer than 500 characters", () => {
    expect(wordsOf(`short ${"a".repeat(501)} ${"b".repeat(500)}`)).toEqual(["short", "b".repeat(500)]);
  });
});

describe("parseQuery", () => {
  it("makes every term a word to find, a trailing * a prefix", () => {
    expect(parseQuery("  Alice@exa*  invoice.paid ").terms).toEqual([
      { words: ["alice@exa"], prefix: true },
      { words: ["invoice.paid"], prefix: false },
    ]);
  });
  it("makes a quoted text a phrase, and words joined by other characters one too", () => {
    const parsed = parseQuery(`"Alice  Smith" refund alice,bob "unclosed quote`);
    expect(parsed.terms).toEqual([
      { words: ["alice", "smith"], prefix: false },
      { words: ["refund"], prefix: false },
      { words: ["alice", "bob"], prefix: false },
      { words: ["unclosed", "quote"], prefix: false },
    ]);
    expect(phrasesOf(parsed)).toEqual([" alice smith ", " alice bob ", " unclosed quote "]);
    expect(phrasesOf(parseQuery(`"alice smi*"`))).toEqual([" alice smi"]);
  });
  it("has no term for a q without words", () => {
    expect(parseQuery(`% * "" !!`).terms).toEqual([]);
    expect(parseQuery("%").key).toBeUndefined();
  });
  it("keys on the longest ASCII letters-and-digits run, which any matching body holds as it is", () => {
    expect(parseQuery("user142518@example.com").key).toBe("user142518");
    expect(parseQuery("Zoë").key).toBe("zo");
    expect(parseQuery("ü").key).toBeUndefined();
    expect(parseQuery("cus_N* refund").key).toBe("refund");
  });
  it("writes the words as a tsquery, quoted and escaped, prefixes with :*", () => {
    expect(wordsQuery(parseQuery(`cus_12* "alice smith" Zoë`))).toBe(`'cus_12':* & 'alice' & 'smith' & 'zo\\\\303\\\\253'`);
  });
});
