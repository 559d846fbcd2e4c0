// What a destination filter matches against: the FilterInput of a request, its `body` and `query` as filters see them.

export type FilterInput = {
  body: unknown;
  headers: Record<string, string>;
  query: Record<string, string | string[]>;
  path: string;
};

const JSON_WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function looksLikeJson(text: string, contentType: string | undefined): boolean {
  if (contentType?.toLowerCase().includes("json")) return true;
  for (const character of text) {
    if (!JSON_WHITESPACE.has(character)) return character === "{" || character === "[";
  }
  return false;
}

/**
 * The `body` a filter sees. JSON (tried when the content type mentions json or the text starts with
 * `{` or `[`, whatever the content type says) → the parsed value. Other valid UTF-8 → the text itself,
 * so `$contains`/`$startsWith` work on XML, form or plain-text bodies (as with Hookdeck). Empty or not
 * UTF-8 → undefined. A leading byte-order mark is dropped. Never throws.
 */
export function parseFilterBody(raw: Buffer, contentType?: string): unknown {
  try {
    if (raw.length === 0) return undefined;
    const text = strictUtf8.decode(raw);
    if (looksLikeJson(text, contentType)) {
      try {
        return JSON.parse(text);
      } catch {
        // Not JSON after all: the text below.
      }
    }
    return text;
  } catch {
    return undefined;
  }
}

/**
 * The `query` a filter sees: a name given once → its string, a repeated name → its strings in order.
 * A null-prototype object, so a parameter named `__proto__` is plain data like any other.
 */
export function toFilterQuery(params: URLSearchParams): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = Object.create(null);
  for (const [name, value] of params) {
    const seen = Object.hasOwn(query, name) ? query[name] : undefined;
    if (seen === undefined) query[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else query[name] = [seen, value];
  }
  return query;
}
