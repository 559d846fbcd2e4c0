import { describe, expect, it } from "vitest";
import {
  compileFilter,
  formatFilterPath,
  MAX_FILTER_BYTES,
  MAX_FILTER_DEPTH,
  MAX_FILTER_LIST_ITEMS,
  MAX_FILTER_NODES,
  MAX_FILTER_STRING_BYTES,
  parseFilterBody,
  toFilterQuery,
  type FilterInput,
  type FilterMatch,
} from "./filter";

function request(parts: Partial<FilterInput> = {}): FilterInput {
  return { body: undefined, headers: {}, query: {}, path: "/", ...parts };
}

function compiled(filter: unknown): FilterMatch {
  const result = compileFilter(filter);
  if (!result.ok) throw new Error(`expected a valid filter, got ${result.path}: ${result.message}`);
  return result.match;
}

/** Whether `{body: bodyFilter}` matches a request with this body. */
function bodyMatches(bodyFilter: unknown, body: unknown): boolean {
  return compiled({ body: bodyFilter })(request({ body }));
}

function refusal(filter: unknown): { path: string; message: string } {
  const result = compileFilter(filter);
  if (result.ok) throw new Error(`expected ${JSON.stringify(filter)} to be refused`);
  return { path: result.path, message: result.message };
}

describe("empty filters", () => {
  it("match every request: {}, null and undefined", () => {
    for (const filter of [{}, null, undefined, { body: {} }]) {
      const match = compiled(filter);
      expect(match(request())).toBe(true);
      expect(match(request({ body: { a: 1 }, headers: { "x-a": "1" }, path: "/p" }))).toBe(true);
    }
  });
});

describe("plain values", () => {
  it("match strictly equal values of every JSON type", () => {
    expect(bodyMatches({ type: "order/created" }, { type: "order/created", order: { id: 1 } })).toBe(true);
    expect(bodyMatches({ type: "order/created" }, { type: "order/updated" })).toBe(false);
    expect(bodyMatches({ count: 0 }, { count: 0 })).toBe(true);
    expect(bodyMatches({ count: 0 }, { count: 1 })).toBe(false);
    expect(bodyMatches({ live: false }, { live: false })).toBe(true);
    expect(bodyMatches({ live: false }, { live: 0 })).toBe(false);
    expect(bodyMatches({ gone: null }, { gone: null })).toBe(true);
    expect(bodyMatches({ gone: null }, {})).toBe(false);
  });

  it("never coerce types", () => {
    expect(bodyMatches({ amount: 1000 }, { amount: "1000" })).toBe(false);
    expect(bodyMatches({ amount: "1000" }, { amount: 1000 })).toBe(false);
    expect(bodyMatches({ flag: true }, { flag: "true" })).toBe(false);
  });

  it("match a whole non-object body", () => {
    expect(bodyMatches(false, false)).toBe(true);
    expect(bodyMatches(false, true)).toBe(false);
    expect(bodyMatches("ping", "ping")).toBe(true);
    expect(bodyMatches("ping", "pong")).toBe(false);
  });

  it("do not match an absent field", () => {
    expect(bodyMatches({ type: "a" }, {})).toBe(false);
    expect(bodyMatches({ type: "a" }, undefined)).toBe(false);
  });
});

describe("nested objects", () => {
  it("match when every filter key matches, other keys ignored", () => {
    const body = { product: { title: "A product", inventory: 0, vendor: { name: "Acme" } } };
    expect(bodyMatches({ product: { inventory: 0 } }, body)).toBe(true);
    expect(bodyMatches({ product: { inventory: 0, vendor: { name: "Acme" } } }, body)).toBe(true);
    expect(bodyMatches({ product: { inventory: 0, vendor: { name: "Other" } } }, body)).toBe(false);
    expect(bodyMatches({ product: { inventory: 1 } }, body)).toBe(false);
  });

  it("do not match a missing or non-object parent", () => {
    expect(bodyMatches({ data: { id: 1 } }, {})).toBe(false);
    expect(bodyMatches({ data: { id: 1 } }, { data: "id" })).toBe(false);
    expect(bodyMatches({ data: { id: 1 } }, { data: null })).toBe(false);
  });
});

describe("arrays in the document", () => {
  it("match a plain value when any element equals it", () => {
    const body = { product: { tags: ["gift", "something"] } };
    expect(bodyMatches({ product: { tags: "gift" } }, body)).toBe(true);
    expect(bodyMatches({ product: { tags: "other" } }, body)).toBe(false);
    expect(bodyMatches({ product: { tags: "gift" } }, { product: { tags: [] } })).toBe(false);
  });

  it("match a plain object when any element matches it", () => {
    const body = { order: { id: 123, items: [{ id: 456, title: "My product" }, { id: 789, title: "Other" }] } };
    expect(bodyMatches({ order: { items: { id: 456 } } }, body)).toBe(true);
    expect(bodyMatches({ order: { items: { id: 789, title: "Other" } } }, body)).toBe(true);
    // Both fields must hold in the same element.
    expect(bodyMatches({ order: { items: { id: 456, title: "Other" } } }, body)).toBe(false);
    expect(bodyMatches({ order: { items: { id: 1 } } }, body)).toBe(false);
  });

  it("match a filter array when the document array contains every entry, in any order", () => {
    const body = { tags: ["gift", "something", "another"] };
    expect(bodyMatches({ tags: ["another", "gift"] }, body)).toBe(true);
    expect(bodyMatches({ tags: ["gift", "missing"] }, body)).toBe(false);
    expect(bodyMatches({ tags: ["gift"] }, { tags: "gift" })).toBe(false);
    expect(bodyMatches({ items: [{ id: 2 }, { id: 1 }] }, { items: [{ id: 1, n: "a" }, { id: 2, n: "b" }] })).toBe(true);
    expect(bodyMatches({ items: [{ id: 2 }, { id: 3 }] }, { items: [{ id: 1 }, { id: 2 }] })).toBe(false);
  });

  it("are not searched element by element by value operators ($contains does that)", () => {
    expect(bodyMatches({ tags: { $startsWith: "gi" } }, { tags: ["gift"] })).toBe(false);
    expect(bodyMatches({ tags: { $eq: "gift" } }, { tags: ["gift"] })).toBe(false);
    expect(bodyMatches({ tags: { $contains: "gift" } }, { tags: ["gift"] })).toBe(true);
  });
});

describe("operators", () => {
  it("$eq: equal values, deep equality for objects and arrays", () => {
    expect(bodyMatches({ status: { $eq: "paid" } }, { status: "paid" })).toBe(true);
    expect(bodyMatches({ status: { $eq: "paid" } }, { status: "open" })).toBe(false);
    expect(bodyMatches({ meta: { $eq: { a: 1, b: [1, 2] } } }, { meta: { b: [1, 2], a: 1 } })).toBe(true);
    expect(bodyMatches({ meta: { $eq: { a: 1 } } }, { meta: { a: 1, b: 2 } })).toBe(false);
    expect(bodyMatches({ list: { $eq: [1, 2] } }, { list: [1, 2] })).toBe(true);
    expect(bodyMatches({ list: { $eq: [1, 2] } }, { list: [2, 1] })).toBe(false);
    expect(bodyMatches({ list: { $eq: [1, 2] } }, { list: [1, 2, 3] })).toBe(false);
    expect(bodyMatches({ gone: { $eq: null } }, { gone: null })).toBe(true);
    expect(bodyMatches({ gone: { $eq: null } }, {})).toBe(false);
  });

  it("$eq takes its argument literally, $-keys included", () => {
    expect(bodyMatches({ raw: { $eq: { $gt: 1 } } }, { raw: { $gt: 1 } })).toBe(true);
    expect(bodyMatches({ raw: { $eq: { $gt: 1 } } }, { raw: 5 })).toBe(false);
  });

  it("$neq: anything but the value, an absent one included", () => {
    expect(bodyMatches({ status: { $neq: "void" } }, { status: "paid" })).toBe(true);
    expect(bodyMatches({ status: { $neq: "void" } }, { status: "void" })).toBe(false);
    expect(bodyMatches({ status: { $neq: "void" } }, {})).toBe(true);
    expect(bodyMatches({ meta: { $neq: { a: 1 } } }, { meta: { a: 1 } })).toBe(false);
  });

  it("$in / $nin: one of a list", () => {
    expect(bodyMatches({ action: { $in: ["opened", "reopened"] } }, { action: "reopened" })).toBe(true);
    expect(bodyMatches({ action: { $in: ["opened", "reopened"] } }, { action: "closed" })).toBe(false);
    expect(bodyMatches({ action: { $in: ["opened"] } }, {})).toBe(false);
    expect(bodyMatches({ code: { $in: [1, "2", null] } }, { code: 2 })).toBe(false);
    expect(bodyMatches({ code: { $in: [1, "2", null] } }, { code: null })).toBe(true);
    expect(bodyMatches({ pair: { $in: [[1, 2], { a: 1 }] } }, { pair: { a: 1 } })).toBe(true);
    expect(bodyMatches({ pair: { $in: [[1, 2], { a: 1 }] } }, { pair: [1, 2] })).toBe(true);
    expect(bodyMatches({ pair: { $in: [[1, 2], { a: 1 }] } }, { pair: [2, 1] })).toBe(false);
    expect(bodyMatches({ action: { $in: [] } }, { action: "x" })).toBe(false);

    expect(bodyMatches({ action: { $nin: ["deleted", "archived"] } }, { action: "created" })).toBe(true);
    expect(bodyMatches({ action: { $nin: ["deleted", "archived"] } }, { action: "deleted" })).toBe(false);
    expect(bodyMatches({ action: { $nin: ["deleted"] } }, {})).toBe(true);
  });

  it("$gt $gte $lt $lte on numbers, at and around the bound", () => {
    const cases: Array<[string, number, boolean]> = [
      ["$gt", 999, false], ["$gt", 1000, false], ["$gt", 1000.5, true],
      ["$gte", 999, false], ["$gte", 1000, true], ["$gte", 1001, true],
      ["$lt", 999, true], ["$lt", 1000, false], ["$lt", 1001, false],
      ["$lte", 999, true], ["$lte", 1000, true], ["$lte", 1001, false],
    ];
    for (const [operator, amount, expected] of cases) {
      expect(bodyMatches({ amount: { [operator]: 1000 } }, { amount }), `${amount} ${operator} 1000`).toBe(expected);
    }
  });

  it("$gt $gte $lt $lte on strings, only against strings", () => {
    expect(bodyMatches({ at: { $gte: "2026-01-01T00:00:00Z" } }, { at: "2026-03-04T05:06:07Z" })).toBe(true);
    expect(bodyMatches({ at: { $gte: "2026-01-01T00:00:00Z" } }, { at: "2025-12-31T23:59:59Z" })).toBe(false);
    expect(bodyMatches({ at: { $lt: "b" } }, { at: "a" })).toBe(true);
    expect(bodyMatches({ at: { $lt: "b" } }, { at: "c" })).toBe(false);
    expect(bodyMatches({ at: { $lte: "b" } }, { at: "b" })).toBe(true);
    expect(bodyMatches({ at: { $gt: "b" } }, { at: "b" })).toBe(false);
    // Same type only: no coercion either way.
    expect(bodyMatches({ amount: { $gte: 1000 } }, { amount: "5000" })).toBe(false);
    expect(bodyMatches({ amount: { $gte: "1000" } }, { amount: 5000 })).toBe(false);
    expect(bodyMatches({ amount: { $gte: 1000 } }, { amount: [5000] })).toBe(false);
    expect(bodyMatches({ amount: { $lt: 1000 } }, { amount: null })).toBe(false);
    expect(bodyMatches({ amount: { $lt: 1000 } }, {})).toBe(false);
  });

  it("several operators on one value are ANDed (a range)", () => {
    const range = { amount: { $gte: 100, $lt: 500 } };
    expect(bodyMatches(range, { amount: 100 })).toBe(true);
    expect(bodyMatches(range, { amount: 499 })).toBe(true);
    expect(bodyMatches(range, { amount: 500 })).toBe(false);
    expect(bodyMatches(range, { amount: 99 })).toBe(false);
  });

  it("$startsWith / $endsWith on strings only", () => {
    expect(bodyMatches({ type: { $startsWith: "invoice." } }, { type: "invoice.paid" })).toBe(true);
    expect(bodyMatches({ type: { $startsWith: "invoice." } }, { type: "customer.invoice.paid" })).toBe(false);
    expect(bodyMatches({ email: { $endsWith: "@example.com" } }, { email: "a@example.com" })).toBe(true);
    expect(bodyMatches({ email: { $endsWith: "@example.com" } }, { email: "a@example.com.evil" })).toBe(false);
    expect(bodyMatches({ n: { $startsWith: "1" } }, { n: 123 })).toBe(false);
    expect(bodyMatches({ n: { $endsWith: "3" } }, { n: 123 })).toBe(false);
  });

  it("$startsWith / $endsWith / $contains treat their argument as text, not a pattern", () => {
    expect(bodyMatches({ s: { $startsWith: ".*" } }, { s: "abc" })).toBe(false);
    expect(bodyMatches({ s: { $startsWith: ".*" } }, { s: ".*abc" })).toBe(true);
    expect(bodyMatches({ s: { $contains: "(a+)+$" } }, { s: "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!" })).toBe(false);
  });

  it("$contains: a substring of a string, an element of an array", () => {
    expect(bodyMatches({ title: { $contains: "urgent" } }, { title: "Fix: urgent bug" })).toBe(true);
    expect(bodyMatches({ title: { $contains: "urgent" } }, { title: "Fix: minor bug" })).toBe(false);
    expect(bodyMatches({ tags: { $contains: "b" } }, { tags: ["a", "b"] })).toBe(true);
    expect(bodyMatches({ tags: { $contains: "b" } }, { tags: ["a", "bc"] })).toBe(false);
    expect(bodyMatches({ ids: { $contains: 2 } }, { ids: [1, 2, 3] })).toBe(true);
    expect(bodyMatches({ ids: { $contains: 4 } }, { ids: [1, 2, 3] })).toBe(false);
    expect(bodyMatches({ items: { $contains: { id: 1 } } }, { items: [{ id: 1 }] })).toBe(true);
    // Elements compare by deep equality, not partially.
    expect(bodyMatches({ items: { $contains: { id: 1 } } }, { items: [{ id: 1, n: 2 }] })).toBe(false);
    expect(bodyMatches({ n: { $contains: 1 } }, { n: 1 })).toBe(false);
    expect(bodyMatches({ s: { $contains: "1" } }, { s: 123 })).toBe(false);
    expect(bodyMatches({ s: { $contains: "x" } }, {})).toBe(false);
  });

  it("$exist: present (null counts) or absent", () => {
    expect(bodyMatches({ discount: { $exist: true } }, { discount: "CODE" })).toBe(true);
    expect(bodyMatches({ discount: { $exist: true } }, { discount: null })).toBe(true);
    expect(bodyMatches({ discount: { $exist: true } }, {})).toBe(false);
    expect(bodyMatches({ deleted_at: { $exist: false } }, {})).toBe(true);
    expect(bodyMatches({ deleted_at: { $exist: false } }, { deleted_at: "2026-01-01" })).toBe(false);
    expect(bodyMatches({ data: { deleted_at: { $exist: false } } }, {})).toBe(true);
    expect(compiled({ body: { $exist: false } })(request())).toBe(true);
    expect(compiled({ body: { $exist: false } })(request({ body: {} }))).toBe(false);
  });

  it("$not negates a filter: an operator, a plain value or an object", () => {
    const notCancelled = { status: { $not: { $in: ["cancelled", "refunded"] } } };
    expect(bodyMatches(notCancelled, { status: "paid" })).toBe(true);
    expect(bodyMatches(notCancelled, { status: "refunded" })).toBe(false);
    expect(bodyMatches({ tags: { $not: "spam" } }, { tags: ["ham", "eggs"] })).toBe(true);
    expect(bodyMatches({ tags: { $not: "spam" } }, { tags: ["ham", "spam"] })).toBe(false);
    expect(bodyMatches({ $not: { draft: true } }, { draft: false })).toBe(true);
    expect(bodyMatches({ $not: { draft: true } }, { draft: true })).toBe(false);
  });

  it("$or / $and on a value", () => {
    expect(bodyMatches({ inventory: { $or: [1, 5] } }, { inventory: 5 })).toBe(true);
    expect(bodyMatches({ inventory: { $or: [1, 5] } }, { inventory: 3 })).toBe(false);
    const between = { n: { $and: [{ $gt: 1 }, { $lt: 3 }] } };
    expect(bodyMatches(between, { n: 2 })).toBe(true);
    expect(bodyMatches(between, { n: 3 })).toBe(false);
    expect(bodyMatches({ $or: [{ a: 1 }, { b: 2 }] }, { b: 2 })).toBe(true);
    expect(bodyMatches({ $or: [{ a: 1 }, { b: 2 }] }, { a: 2, b: 1 })).toBe(false);
  });

  it("$or / $and / $not across parts of the request, nested", () => {
    const match = compiled({
      $or: [
        { headers: { "x-event": "push" } },
        { $and: [{ body: { kind: "deploy" } }, { $not: { path: { $startsWith: "/test/" } } }] },
      ],
    });
    expect(match(request({ headers: { "x-event": "push" } }))).toBe(true);
    expect(match(request({ body: { kind: "deploy" }, path: "/prod/hook" }))).toBe(true);
    expect(match(request({ body: { kind: "deploy" }, path: "/test/hook" }))).toBe(false);
    expect(match(request({ headers: { "x-event": "issues" }, body: { kind: "other" } }))).toBe(false);
  });

  it("top-level keys are ANDed", () => {
    const match = compiled({ body: { type: "a" }, headers: { "x-env": "prod" }, path: "/in" });
    expect(match(request({ body: { type: "a" }, headers: { "x-env": "prod" }, path: "/in" }))).toBe(true);
    expect(match(request({ body: { type: "a" }, headers: { "x-env": "dev" }, path: "/in" }))).toBe(false);
    expect(match(request({ body: { type: "a" }, headers: { "x-env": "prod" }, path: "/out" }))).toBe(false);
  });
});

describe("headers, query and path", () => {
  it("headers: filter names are lower-cased, values stay case-sensitive", () => {
    const headers = { "x-github-event": "push", "content-type": "application/json" };
    expect(compiled({ headers: { "X-GitHub-Event": "push" } })(request({ headers }))).toBe(true);
    expect(compiled({ headers: { "x-github-event": "Push" } })(request({ headers }))).toBe(false);
    expect(compiled({ headers: { $or: [{ "X-GitHub-Event": "ping" }, { "Content-Type": { $contains: "json" } }] } })(request({ headers }))).toBe(true);
    expect(compiled({ headers: { "x-signature": { $exist: false } } })(request({ headers }))).toBe(true);
    expect(compiled({ headers: { "x-signature": { $exist: true } } })(request({ headers }))).toBe(false);
  });

  it("headers are strings: a number in the filter never matches them", () => {
    expect(compiled({ headers: { "x-count": 5 } })(request({ headers: { "x-count": "5" } }))).toBe(false);
    expect(compiled({ headers: { "x-count": "5" } })(request({ headers: { "x-count": "5" } }))).toBe(true);
  });

  it("query: a plain string matches a single value or any of a repeated one", () => {
    const query = toFilterQuery(new URLSearchParams("env=prod&tag=a&tag=b"));
    expect(query).toEqual({ env: "prod", tag: ["a", "b"] });
    expect(compiled({ query: { env: "prod" } })(request({ query }))).toBe(true);
    expect(compiled({ query: { env: "dev" } })(request({ query }))).toBe(false);
    expect(compiled({ query: { tag: "b" } })(request({ query }))).toBe(true);
    expect(compiled({ query: { tag: "c" } })(request({ query }))).toBe(false);
    expect(compiled({ query: { tag: { $contains: "a" } } })(request({ query }))).toBe(true);
    expect(compiled({ query: { tag: ["b", "a"] } })(request({ query }))).toBe(true);
    expect(compiled({ query: { missing: { $exist: false } } })(request({ query }))).toBe(true);
  });

  it("toFilterQuery keeps a parameter named __proto__ as data", () => {
    const query = toFilterQuery(new URLSearchParams("__proto__=x&constructor=y&__proto__=z"));
    expect(Object.getPrototypeOf(query)).toBeNull();
    expect(Object.hasOwn(query, "__proto__")).toBe(true);
    expect(query["__proto__"]).toEqual(["x", "z"]);
    expect(compiled(JSON.parse('{"query":{"__proto__":"z","constructor":"y"}}'))(request({ query }))).toBe(true);
  });

  it("path: exact and with operators", () => {
    expect(compiled({ path: "/hooks/stripe" })(request({ path: "/hooks/stripe" }))).toBe(true);
    expect(compiled({ path: "/hooks/stripe" })(request({ path: "/hooks/stripe/" }))).toBe(false);
    expect(compiled({ path: { $startsWith: "/hooks/" } })(request({ path: "/hooks/x" }))).toBe(true);
    expect(compiled({ path: { $startsWith: "/hooks/" } })(request({ path: "/other" }))).toBe(false);
    expect(compiled({ path: { $not: { $endsWith: "/test" } } })(request({ path: "/a/test" }))).toBe(false);
  });
});

describe("validation", () => {
  it("refuses a root that is not an object, path \"\"", () => {
    for (const filter of ["body", 1, true, [], [{ body: {} }]]) {
      expect(refusal(filter)).toEqual({ path: "", message: "a filter must be a JSON object" });
    }
  });

  it("refuses unknown top-level keys, naming them", () => {
    expect(refusal({ body: {}, data: { a: 1 } }).path).toBe("data");
    expect(refusal({ Body: {} })).toMatchObject({ path: "Body", message: expect.stringContaining("unknown top-level key") });
    expect(refusal({ $or: [{ body: {} }, { bodyy: {} }] }).path).toBe("$or[1].bodyy");
  });

  it("refuses value operators at the top level and on the headers/query objects", () => {
    expect(refusal({ $eq: 1 })).toMatchObject({ path: "$eq", message: expect.stringContaining("whole request") });
    expect(refusal({ headers: { $exist: true } })).toMatchObject({ path: "headers.$exist" });
    expect(refusal({ query: { $contains: "a" } }).path).toBe("query.$contains");
    expect(refusal({ headers: "x" })).toMatchObject({ path: "headers", message: expect.stringContaining("object of names") });
    expect(refusal({ query: ["a"] }).path).toBe("query");
    expect(refusal({ $not: "x" }).path).toBe("$not");
    expect(refusal({ $or: [{ body: {} }, 1] }).path).toBe("$or[1]");
  });

  it("refuses unknown operators anywhere", () => {
    expect(refusal({ body: { type: { $regex: "^a" } } })).toMatchObject({ path: "body.type.$regex", message: "unknown operator $regex" });
    expect(refusal({ $nor: [] }).path).toBe("$nor");
    expect(refusal({ body: { $exists: true } }).path).toBe("body.$exists");
  });

  it("refuses value operators beside field names, naming the later key", () => {
    expect(refusal({ body: { amount: 1, $gte: 2 } })).toMatchObject({ path: "body.$gte", message: expect.stringContaining('"amount"') });
    expect(refusal({ body: { $gte: 2, amount: 1 } })).toMatchObject({ path: "body.amount", message: expect.stringContaining("$gte") });
    // Logical operators may sit beside fields.
    expect(bodyMatches({ a: 1, $not: { b: 2 } }, { a: 1, b: 3 })).toBe(true);
    expect(bodyMatches({ a: 1, $not: { b: 2 } }, { a: 1, b: 2 })).toBe(false);
  });

  it("refuses operator arguments of the wrong type, naming the operator", () => {
    const cases: Array<[unknown, string, string]> = [
      [{ $in: "a" }, "body.x.$in", "$in takes a list of values"],
      [{ $nin: { a: 1 } }, "body.x.$nin", "$nin takes a list of values"],
      [{ $gt: true }, "body.x.$gt", "$gt takes a number or a string"],
      [{ $lte: null }, "body.x.$lte", "$lte takes a number or a string"],
      [{ $gte: [1] }, "body.x.$gte", "$gte takes a number or a string"],
      [{ $startsWith: 5 }, "body.x.$startsWith", "$startsWith takes a string"],
      [{ $endsWith: ["a"] }, "body.x.$endsWith", "$endsWith takes a string"],
      [{ $exist: "yes" }, "body.x.$exist", "$exist takes true or false"],
      [{ $or: { a: 1 } }, "body.x.$or", "$or takes a list of filters"],
      [{ $and: [] }, "body.x.$and", "$and needs at least one filter"],
      [{ $or: [] }, "body.x.$or", "$or needs at least one filter"],
    ];
    for (const [operatorFilter, path, message] of cases) {
      expect(refusal({ body: { x: operatorFilter } })).toEqual({ path, message });
    }
  });

  it("names positions inside $or/$and lists and arrays", () => {
    const filter = { $or: [{ body: { type: "a" } }, { body: { type: { $startsWith: 5 } } }] };
    expect(refusal(filter).path).toBe("$or[1].body.type.$startsWith");
    expect(refusal({ body: { tags: ["a", { $bad: 1 }] } }).path).toBe("body.tags[1].$bad");
    expect(refusal({ body: { n: { $and: [{ $gt: 1 }, { $lt: {} }] } } }).path).toBe("body.n.$and[1].$lt");
  });

  it("brackets names that would make the path ambiguous", () => {
    expect(refusal({ body: { "a.b": { $gt: {} } } }).path).toBe('body["a.b"].$gt');
    expect(refusal({ body: { "": { $gt: {} } } }).path).toBe('body[""].$gt');
    expect(refusal({ body: { "x y": { "[0]": { $nope: 1 } } } }).path).toBe('body["x y"]["[0]"].$nope');
    expect(formatFilterPath(["body", "k".repeat(70)])).toBe(`body["${"k".repeat(64)}…"]`);
    expect(formatFilterPath([])).toBe("");
    expect(formatFilterPath(["$or", 0, "x-github-event"])).toBe("$or[0].x-github-event");
  });

  it("refuses values that are not JSON, naming them", () => {
    expect(refusal({ body: { n: Number.NaN } })).toMatchObject({ path: "body.n", message: expect.stringContaining("not a JSON value") });
    expect(refusal({ body: { n: { $gt: Number.POSITIVE_INFINITY } } }).path).toBe("body.n.$gt");
    expect(refusal({ body: { n: undefined } }).path).toBe("body.n");
    expect(refusal({ body: { at: new Date(0) } }).path).toBe("body.at");
    expect(refusal({ body: { f: () => true } }).path).toBe("body.f");
    expect(refusal({ body: { big: { $eq: 1n } } }).path).toBe("body.big.$eq");
    expect(refusal({ body: { m: { $in: [1, new Map()] } } }).path).toBe("body.m.$in[1]");
  });

  it("reports the first error in document order", () => {
    expect(refusal({ body: { a: { $bad: 1 }, b: { $gt: true } } }).path).toBe("body.a.$bad");
    expect(refusal({ body: { b: { $gt: true }, a: { $bad: 1 } } }).path).toBe("body.b.$gt");
  });
});

describe("bounds", () => {
  /** A filter whose objects and arrays nest `levels` deep, the root being level 1. */
  function nested(levels: number): unknown {
    let inner: unknown = 1;
    for (let level = 0; level < levels - 1; level += 1) inner = { a: inner };
    return { body: inner };
  }

  it(`depth: ${MAX_FILTER_DEPTH} levels pass, one more is refused at the level that exceeds`, () => {
    expect(compileFilter(nested(MAX_FILTER_DEPTH)).ok).toBe(true);
    const refused = refusal(nested(MAX_FILTER_DEPTH + 1));
    expect(refused.path).toBe(`body${".a".repeat(MAX_FILTER_DEPTH - 1)}`);
    expect(refused.message).toContain(`deeper than ${MAX_FILTER_DEPTH}`);
    // Literal arguments count too.
    const deepLiteral = { body: { x: { $eq: (nested(MAX_FILTER_DEPTH) as { body: unknown }).body } } };
    expect(refusal(deepLiteral).message).toContain("deeper than");
  });

  it(`nodes: ${MAX_FILTER_NODES} values pass, the next one is refused where it stands`, () => {
    // root + body + array = 3 values, then the entries.
    const entries = (count: number) => Array.from({ length: count }, (_, index) => `t${index}`);
    expect(compileFilter({ body: { tags: entries(MAX_FILTER_NODES - 3) } }).ok).toBe(true);
    const refused = refusal({ body: { tags: entries(MAX_FILTER_NODES - 2) } });
    expect(refused).toEqual({ path: `body.tags[${MAX_FILTER_NODES - 3}]`, message: `the filter holds more than ${MAX_FILTER_NODES} values` });
    // $or branches count as well.
    const branches = Array.from({ length: 300 }, (_, index) => ({ body: { n: index } }));
    expect(refusal({ $or: branches }).message).toContain(`more than ${MAX_FILTER_NODES}`);
  });

  it(`strings: ${MAX_FILTER_STRING_BYTES} UTF-8 bytes pass, one more is refused`, () => {
    expect(compileFilter({ body: { s: "a".repeat(MAX_FILTER_STRING_BYTES) } }).ok).toBe(true);
    expect(refusal({ body: { s: "a".repeat(MAX_FILTER_STRING_BYTES + 1) } })).toEqual({
      path: "body.s", message: `a string is longer than ${MAX_FILTER_STRING_BYTES} bytes`,
    });
    // Counted in bytes: "é" is two.
    expect(compileFilter({ body: { s: "é".repeat(MAX_FILTER_STRING_BYTES / 2) } }).ok).toBe(true);
    expect(refusal({ body: { s: { $contains: "é".repeat(MAX_FILTER_STRING_BYTES / 2 + 1) } } }).path).toBe("body.s.$contains");
    expect(refusal({ body: { s: { $in: ["ok", "x".repeat(MAX_FILTER_STRING_BYTES + 1)] } } }).path).toBe("body.s.$in[1]");
  });

  it("names: a key longer than the string bound is refused", () => {
    const name = "k".repeat(MAX_FILTER_STRING_BYTES + 1);
    expect(refusal({ body: { [name]: 1 } })).toEqual({
      path: `body["${"k".repeat(64)}…"]`, message: `a name is longer than ${MAX_FILTER_STRING_BYTES} bytes`,
    });
    expect(refusal({ body: { x: { $eq: { [name]: 1 } } } }).message).toContain("a name is longer");
  });

  it(`serialized size: over ${MAX_FILTER_BYTES} bytes is refused at the root`, () => {
    const chunk = "x".repeat(1000);
    expect(compileFilter({ body: { tags: Array.from({ length: 15 }, () => chunk) } }).ok).toBe(true);
    const refused = refusal({ body: { tags: Array.from({ length: 17 }, () => chunk) } });
    expect(refused.path).toBe("");
    expect(refused.message).toMatch(/^the filter is \d+ bytes as JSON; at most 16384$/);
  });

  it(`$in / $nin: ${MAX_FILTER_LIST_ITEMS} values pass, one more is refused`, () => {
    const values = (count: number) => Array.from({ length: count }, (_, index) => index);
    const match = compiled({ body: { n: { $in: values(MAX_FILTER_LIST_ITEMS) } } });
    expect(match(request({ body: { n: MAX_FILTER_LIST_ITEMS - 1 } }))).toBe(true);
    expect(match(request({ body: { n: MAX_FILTER_LIST_ITEMS } }))).toBe(false);
    expect(refusal({ body: { n: { $in: values(MAX_FILTER_LIST_ITEMS + 1) } } })).toEqual({
      path: "body.n.$in", message: `$in takes at most ${MAX_FILTER_LIST_ITEMS} values`,
    });
    expect(refusal({ body: { n: { $nin: values(MAX_FILTER_LIST_ITEMS + 1) } } }).path).toBe("body.n.$nin");
  });
});

describe("prototype keys are plain data", () => {
  it("__proto__ in a filter (from JSON) matches only an own __proto__ key", () => {
    const match = compiled(JSON.parse('{"body":{"__proto__":{"isAdmin":true}}}'));
    expect(match(request({ body: {} }))).toBe(false);
    expect(match(request({ body: JSON.parse('{"__proto__":{"isAdmin":true}}') }))).toBe(true);
    expect(match(request({ body: JSON.parse('{"__proto__":{"isAdmin":false}}') }))).toBe(false);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it("constructor, toString, hasOwnProperty never reach Object.prototype", () => {
    for (const name of ["constructor", "toString", "hasOwnProperty", "__proto__", "valueOf"]) {
      const filter = JSON.parse(`{"body":{"${name}":{"$exist":true}}}`);
      expect(compiled(filter)(request({ body: {} })), name).toBe(false);
      expect(compiled(JSON.parse(`{"body":{"${name}":{"$exist":false}}}`))(request({ body: {} })), name).toBe(true);
      expect(compiled(filter)(request({ body: JSON.parse(`{"${name}":1}`) })), name).toBe(true);
    }
    expect(bodyMatches({ constructor: { name: "Object" } }, {})).toBe(false);
    expect(bodyMatches({ length: 2 }, ["a", "b"])).toBe(false);
    expect(compiled({ headers: { constructor: { $exist: true } } })(request({ headers: {} }))).toBe(false);
  });

  it("__proto__ as a top-level key is refused, by name", () => {
    expect(refusal(JSON.parse('{"__proto__":{"body":{}}}')).path).toBe("__proto__");
  });

  it("$eq/$in literals holding __proto__ compare own keys only", () => {
    const match = compiled(JSON.parse('{"body":{"x":{"$eq":{"__proto__":1}}}}'));
    expect(match(request({ body: JSON.parse('{"x":{"__proto__":1}}') }))).toBe(true);
    expect(match(request({ body: { x: {} } }))).toBe(false);
    const inList = compiled(JSON.parse('{"body":{"x":{"$in":[{"constructor":1}]}}}'));
    expect(inList(request({ body: { x: {} } }))).toBe(false);
    expect(inList(request({ body: JSON.parse('{"x":{"constructor":1}}') }))).toBe(true);
  });

  it("compiling and matching leave Object.prototype untouched", () => {
    const filter = JSON.parse('{"body":{"__proto__":{"polluted":{"$eq":{"__proto__":{"polluted":true}}}}},"$or":[{"query":{"__proto__":"x"}}]}');
    const match = compiled(filter);
    const body = JSON.parse('{"__proto__":{"polluted":{"__proto__":{"polluted":true}}}}');
    expect(match(request({ body, query: toFilterQuery(new URLSearchParams("__proto__=x")) }))).toBe(true);
    expect(match(request({ body, query: toFilterQuery(new URLSearchParams("__proto__=y")) }))).toBe(false);
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain("polluted");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("compiled once", () => {
  it("editing or poisoning the filter document after compiling changes nothing", () => {
    const filter = { body: { type: "a", tags: ["x"], n: { $in: [1, { deep: true }] } } };
    const match = compiled(filter);
    const body = { type: "a", tags: ["x"], n: 1 };
    filter.body.type = "b";
    filter.body.tags.push("y");
    filter.body.n.$in.length = 0;
    Object.defineProperty(filter, "body", { get: () => { throw new Error("the filter was read again"); } });
    expect(match(request({ body }))).toBe(true);
    expect(match(request({ body: { ...body, type: "b" } }))).toBe(false);
  });
});

describe("matching never throws", () => {
  it("odd documents are no match", () => {
    const throwing = Object.defineProperty({}, "type", { enumerable: true, get: () => { throw new Error("boom"); } });
    const proxy = new Proxy({}, { has: () => { throw new Error("boom"); }, getOwnPropertyDescriptor: () => { throw new Error("boom"); } });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    const match = compiled({ body: { type: "a", self: { $eq: { a: 1 } } } });
    for (const body of [throwing, proxy, cyclic, 1n, Symbol("s"), () => 1, new Date(0), new Map([["type", "a"]])]) {
      expect(() => match(request({ body }))).not.toThrow();
      expect(match(request({ body }))).toBe(false);
    }
  });

  it("a malformed input object is no match", () => {
    const match = compiled({ headers: { a: "1" }, query: { b: "2" }, path: { $startsWith: "/" } });
    expect(match({} as FilterInput)).toBe(false);
    expect(match(null as unknown as FilterInput)).toBe(false);
    expect(compiled({ body: { a: 1 } })(undefined as unknown as FilterInput)).toBe(false);
  });
});

describe("realistic payloads", () => {
  const stripeInvoice = {
    id: "evt_1Q2w3E4r5T6y7U8i",
    object: "event",
    api_version: "2024-06-20",
    created: 1767225600,
    livemode: true,
    type: "invoice.payment_succeeded",
    data: {
      object: {
        id: "in_1Q2w3E",
        object: "invoice",
        amount_due: 2500,
        amount_paid: 2500,
        currency: "eur",
        customer: "cus_Abc123",
        customer_email: "billing@example.com",
        metadata: { plan: "pro" },
        lines: {
          object: "list",
          data: [
            { id: "il_1", amount: 2000, price: { id: "price_pro_monthly", recurring: { interval: "month" } } },
            { id: "il_2", amount: 500, price: { id: "price_addon_seats", recurring: { interval: "month" } } },
          ],
        },
        discount: null,
      },
    },
  };
  const stripeFilter = {
    headers: { "Stripe-Signature": { $exist: true } },
    body: {
      type: { $startsWith: "invoice." },
      livemode: true,
      data: {
        object: {
          amount_due: { $gte: 1000 },
          currency: { $in: ["eur", "usd"] },
          customer_email: { $not: { $endsWith: "@test.example.com" } },
          lines: { data: { price: { id: "price_addon_seats" } } },
        },
      },
    },
  };
  const stripeHeaders = { "stripe-signature": "t=1767225600,v1=abc", "content-type": "application/json; charset=utf-8" };
  const stripeBody = parseFilterBody(Buffer.from(JSON.stringify(stripeInvoice)), "application/json; charset=utf-8");

  it("Stripe: routes a paid invoice over 10 EUR with an add-on line", () => {
    const match = compiled(stripeFilter);
    expect(match(request({ body: stripeBody, headers: stripeHeaders, path: "/in/stripe" }))).toBe(true);
  });

  it("Stripe: each unmet condition stops it", () => {
    const match = compiled(stripeFilter);
    const variant = (edit: (event: typeof stripeInvoice) => void) => {
      const event = structuredClone(stripeInvoice);
      edit(event);
      return match(request({ body: event, headers: stripeHeaders }));
    };
    expect(variant(() => {})).toBe(true);
    expect(variant((event) => { event.type = "customer.created"; })).toBe(false);
    expect(variant((event) => { event.livemode = false; })).toBe(false);
    expect(variant((event) => { event.data.object.amount_due = 999; })).toBe(false);
    expect(variant((event) => { event.data.object.currency = "gbp"; })).toBe(false);
    expect(variant((event) => { event.data.object.customer_email = "a@test.example.com"; })).toBe(false);
    expect(variant((event) => { event.data.object.lines.data.pop(); })).toBe(false);
    expect(match(request({ body: stripeBody, headers: { "content-type": "application/json" } }))).toBe(false);
  });

  const githubPullRequest = {
    action: "labeled",
    number: 42,
    label: { name: "deploy" },
    pull_request: {
      title: "Release: v2.3.0",
      draft: false,
      merged: false,
      labels: [{ id: 1, name: "deploy" }, { id: 2, name: "backend" }],
      base: { ref: "main" },
      head: { ref: "release/2.3.0" },
      user: { login: "octocat", type: "User" },
    },
    repository: { full_name: "acme/api", private: true },
    sender: { login: "octocat" },
  };
  const githubFilter = {
    headers: { "X-GitHub-Event": { $in: ["pull_request", "pull_request_target"] } },
    body: {
      action: { $in: ["opened", "reopened", "labeled", "synchronize"] },
      pull_request: {
        draft: false,
        base: { ref: "main" },
        head: { ref: { $startsWith: "release/" } },
        labels: { name: "deploy" },
        user: { type: { $neq: "Bot" } },
      },
      repository: { full_name: { $in: ["acme/api", "acme/web"] } },
    },
    $not: { body: { pull_request: { title: { $contains: "[skip deploy]" } } } },
  };
  const githubHeaders = { "x-github-event": "pull_request", "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958" };

  it("GitHub: routes a labeled release PR into main", () => {
    const match = compiled(githubFilter);
    expect(match(request({ body: githubPullRequest, headers: githubHeaders, path: "/in/github" }))).toBe(true);
  });

  it("GitHub: each unmet condition stops it", () => {
    const match = compiled(githubFilter);
    const variant = (edit: (event: typeof githubPullRequest) => void, headers = githubHeaders) => {
      const event = structuredClone(githubPullRequest);
      edit(event);
      return match(request({ body: event, headers }));
    };
    expect(variant(() => {})).toBe(true);
    expect(variant(() => {}, { ...githubHeaders, "x-github-event": "issues" })).toBe(false);
    expect(variant((event) => { event.action = "closed"; })).toBe(false);
    expect(variant((event) => { event.pull_request.draft = true; })).toBe(false);
    expect(variant((event) => { event.pull_request.base.ref = "develop"; })).toBe(false);
    expect(variant((event) => { event.pull_request.head.ref = "feature/x"; })).toBe(false);
    expect(variant((event) => { event.pull_request.labels = [{ id: 2, name: "backend" }]; })).toBe(false);
    expect(variant((event) => { event.pull_request.user.type = "Bot"; })).toBe(false);
    expect(variant((event) => { event.repository.full_name = "evil/api"; })).toBe(false);
    expect(variant((event) => { event.pull_request.title = "Release [skip deploy]"; })).toBe(false);
  });
});

describe("parseFilterBody", () => {
  it("parses JSON when the content type says so", () => {
    expect(parseFilterBody(Buffer.from('{"a":1}'), "application/json")).toEqual({ a: 1 });
    expect(parseFilterBody(Buffer.from('"text"'), "application/vnd.api+json")).toBe("text");
    expect(parseFilterBody(Buffer.from("42"), "Application/JSON; charset=utf-8")).toBe(42);
    expect(parseFilterBody(Buffer.from("null"), "application/json")).toBeNull();
  });

  it("parses JSON objects and arrays whatever the content type", () => {
    expect(parseFilterBody(Buffer.from(' \n\t{"a":[1]}'))).toEqual({ a: [1] });
    expect(parseFilterBody(Buffer.from("[1,2]"), "text/plain")).toEqual([1, 2]);
    expect(parseFilterBody(Buffer.from('\uFEFF{"bom":true}'), "application/json")).toEqual({ bom: true });
  });

  it("keeps other UTF-8 as text, scalars without a JSON content type included", () => {
    expect(parseFilterBody(Buffer.from("<xml><type>invoice</type></xml>"), "application/xml")).toBe("<xml><type>invoice</type></xml>");
    expect(parseFilterBody(Buffer.from("a=1&b=2"), "application/x-www-form-urlencoded")).toBe("a=1&b=2");
    expect(parseFilterBody(Buffer.from("123"), "text/plain")).toBe("123");
    expect(parseFilterBody(Buffer.from("{not json"), "application/json")).toBe("{not json");
    expect(parseFilterBody(Buffer.from("{not json"))).toBe("{not json");
  });

  it("gives undefined for empty or non-UTF-8 bodies", () => {
    expect(parseFilterBody(Buffer.alloc(0), "application/json")).toBeUndefined();
    expect(parseFilterBody(Buffer.from([0xff, 0xfe, 0x00, 0x7b]))).toBeUndefined();
    expect(parseFilterBody(Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), "application/json")).toBeUndefined();
  });

  it("never throws", () => {
    const deep = Buffer.from("[".repeat(200_000) + "]".repeat(200_000));
    expect(() => parseFilterBody(deep, "application/json")).not.toThrow();
    expect(() => parseFilterBody(Buffer.from("[".repeat(200_000)))).not.toThrow();
    expect(() => parseFilterBody(undefined as unknown as Buffer)).not.toThrow();
    expect(parseFilterBody(undefined as unknown as Buffer)).toBeUndefined();
  });

  it("feeds text bodies to string operators", () => {
    const body = parseFilterBody(Buffer.from("<event><type>invoice.paid</type></event>"), "text/xml");
    expect(bodyMatches({ $contains: "<type>invoice." }, body)).toBe(true);
    expect(bodyMatches({ $contains: "<type>customer." }, body)).toBe(false);
    expect(compiled({ body: { $exist: false } })(request({ body: parseFilterBody(Buffer.alloc(0)) }))).toBe(true);
  });
});
