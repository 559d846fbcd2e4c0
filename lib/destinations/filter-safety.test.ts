// Destination filters stay safe: prototype keys are data, the document is never reread, matching never throws.
import { describe, expect, it } from "vitest";
import { bodyMatches, compiled, refusal, request } from "@/test/filter-fixtures";
import { toFilterQuery, type FilterInput } from "./filter-input";

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
