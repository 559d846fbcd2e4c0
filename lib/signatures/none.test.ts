import { describe, expect, it } from "vitest";
import { none } from "@/lib/signatures/none";
import { request } from "@/test/signature-requests";

describe("none", () => {
  it("accepts an unsigned request and reads webhook-id and the body's type", () => {
    const input = request({ body: Buffer.from('{"type":"build.done"}'), headers: { "webhook-id": "wh_1", "idempotency-key": "ik_1" } });
    expect(none.verify(input)).toEqual({ externalId: "wh_1", eventType: "build.done" });
  });

  it("falls back to Idempotency-Key for the id", () => {
    expect(none.verify(request({ body: Buffer.from("{}"), headers: { "idempotency-key": "ik_1" } })).externalId).toBe("ik_1");
  });

  it("gives null fields for a body that is not JSON and no id header", () => {
    expect(none.verify(request({ body: Buffer.from("hello"), headers: {} }))).toEqual({ externalId: null, eventType: null });
  });

  it("gives a null type when the body's type is not a string", () => {
    expect(none.verify(request({ body: Buffer.from('{"type":3}'), headers: {} })).eventType).toBeNull();
    expect(none.verify(request({ body: Buffer.from('["type"]'), headers: {} })).eventType).toBeNull();
  });
});
