import { describe, expect, it } from "vitest";
import { compileOrderingKey } from "./ordering-key";

const body = { data: { object: { id: "sub_42", items: [{ sku: "A-1" }, { sku: 7 }] } }, flag: true, __proto__: { x: 1 } };

describe("ordering keys", () => {
  it("read a dotted path into the body, array indexes included", () => {
    expect(compileOrderingKey("data.object.id")!({ body, externalId: "evt_1" })).toBe("sub_42");
    expect(compileOrderingKey("data.object.items[0].sku")!({ body, externalId: "evt_1" })).toBe("A-1");
    expect(compileOrderingKey("data.object.items[1].sku")!({ body, externalId: "evt_1" })).toBe("7");
    expect(compileOrderingKey("flag")!({ body, externalId: "evt_1" })).toBe("true");
    expect(compileOrderingKey("[1].id")!({ body: [{ id: 1 }, { id: "second" }], externalId: "e" })).toBe("second");
  });

  it("read the external id for $externalId", () => {
    expect(compileOrderingKey("$externalId")!({ body, externalId: "evt_9" })).toBe("evt_9");
  });

  it("give no value (no order kept) for a missing path, null, or a body that is not JSON", () => {
    expect(compileOrderingKey("data.nothing.here")!({ body, externalId: "e" })).toBeNull();
    expect(compileOrderingKey("data.object.items[5].sku")!({ body, externalId: "e" })).toBeNull();
    expect(compileOrderingKey("data")!({ body: { data: null }, externalId: "e" })).toBeNull();
    expect(compileOrderingKey("data.id")!({ body: "plain text", externalId: "e" })).toBeNull();
    expect(compileOrderingKey("x")!({ body, externalId: "e" })).toBeNull(); // inherited, not the body's own
    expect(compileOrderingKey(null)).toBeNull();
  });

  it("keep an object's value as its JSON, and cut a long one to a bounded text that still tells values apart", () => {
    expect(compileOrderingKey("data.object.items[0]")!({ body, externalId: "e" })).toBe('{"sku":"A-1"}');
    const long = (n: number) => compileOrderingKey("v")!({ body: { v: "x".repeat(n) }, externalId: "e" })!;
    expect(long(500).length).toBeLessThanOrEqual(200);
    expect(long(500)).not.toBe(long(501));
  });
});
