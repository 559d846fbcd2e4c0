// Destination filters refused: each error, the path naming it, and the bounds on a filter's size.
import { describe, expect, it } from "vitest";
import { bodyMatches, compiled, refusal, request } from "@/test/filter-fixtures";
import { compileFilter } from "./filter";
import { MAX_FILTER_BYTES, MAX_FILTER_DEPTH, MAX_FILTER_LIST_ITEMS, MAX_FILTER_NODES, MAX_FILTER_STRING_BYTES } from "./filter-bounds";
import { formatFilterPath } from "./filter-paths";

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
