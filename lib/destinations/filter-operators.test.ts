// Destination filters: what plain values, nested objects, arrays and each operator match.
import { describe, expect, it } from "vitest";
import { bodyMatches, compiled, request } from "@/test/filter-fixtures";

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
