// q as terms for the body's word index (migration 0048's inbox_body_word_vector): words, prefixes, phrases, all
// required; the text PostgreSQL's to_tsquery reads; the key every matching body holds.
import { describe, expect, it } from "vitest";
import { parseQuery, wordsQuery } from "./body-words";

describe("parseQuery", () => {
  it("makes every term a word to find, a trailing * a prefix", () => {
    expect(parseQuery("  Alice@exa*  invoice.paid cus_NffrFeUfNV2Hib ").terms).toEqual([
      { text: "Alice@exa", prefix: true },
      { text: "invoice.paid", prefix: false },
      { text: "cus_NffrFeUfNV2Hib", prefix: false },
    ]);
  });
  it("makes a quoted text one term, a phrase, whatever it holds; an unclosed quote runs to the end", () => {
    expect(parseQuery(`"Alice  Smith" refund "for your ord*" "unclosed quote`).terms).toEqual([
      { text: "Alice  Smith", prefix: false },
      { text: "refund", prefix: false },
      { text: "for your ord", prefix: true },
      { text: "unclosed quote", prefix: false },
    ]);
  });
  it("has no term for a q without a letter or digit", () => {
    expect(parseQuery(`% * "" !! @.`).terms).toEqual([]);
    expect(parseQuery("%").key).toBeUndefined();
    expect(parseQuery("Zoë").terms).toEqual([{ text: "Zoë", prefix: false }]);
  });
  it("keys on the longest ASCII letters-and-digits run, lowered, which any matching body holds as it is", () => {
    expect(parseQuery("USER142518@example.com").key).toBe("user142518");
    expect(parseQuery("Zoë").key).toBe("zo");
    expect(parseQuery("cus_N* refund").key).toBe("refund");
    expect(parseQuery("ü").key).toBeUndefined();
  });
});

describe("wordsQuery", () => {
  it("quotes every term, all required, prefixes with :*, @ < > ( ) as spaces", () => {
    expect(wordsQuery(parseQuery(`cus_12* "alice smith" bob@shop.example.org <b> (x)`))).toBe(`'cus_12':* & 'alice smith' & 'bob shop.example.org' & ' b ' & ' x '`);
  });
  it("escapes quotes and backslashes, so a term cannot change the query's operators", () => {
    expect(wordsQuery(parseQuery(`it's a\\b' | !x`))).toBe(`'it\\'s' & 'a\\\\b\\'' & '!x'`);
  });
});
