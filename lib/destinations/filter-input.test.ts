// What destination filters match against: headers, query and path, and the body as parseFilterBody gives it.
import { describe, expect, it } from "vitest";
import { bodyMatches, compiled, request } from "@/test/filter-fixtures";
import { parseFilterBody, toFilterQuery } from "./filter-input";

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
