import { describe, expect, it } from "vitest";
import { identifyRequest } from "@/lib/signatures";

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

// A refused request's quarantine row says which event it claims to be, read without the secret (#47).
describe("identifyRequest reads the event id and type a request claims, as verify would, without the secret", () => {
  it("reads them where each provider puts them", () => {
    expect(identifyRequest("stripe", { headers: {}, body: json({ id: "evt_1", type: "invoice.paid" }) })).toEqual({ externalId: "evt_1", eventType: "invoice.paid" });
    expect(identifyRequest("github", { headers: { "x-github-delivery": "d-1", "x-github-event": "push" }, body: Buffer.from("payload=x") })).toEqual({ externalId: "d-1", eventType: "push" });
    expect(identifyRequest("shopify", { headers: { "x-shopify-webhook-id": "w-1", "x-shopify-topic": "orders/create" }, body: json({}) })).toEqual({ externalId: "w-1", eventType: "orders/create" });
    expect(identifyRequest("standard-webhooks", { headers: { "webhook-id": "msg_1" }, body: json({ type: "user.created" }) })).toEqual({ externalId: "msg_1", eventType: "user.created" });
    expect(identifyRequest("svix", { headers: { "svix-id": "msg_2" }, body: json({ type: "user.deleted" }) })).toEqual({ externalId: "msg_2", eventType: "user.deleted" });
  });

  it("reads nothing it cannot: a body that is not JSON, a provider that says nothing readable", () => {
    expect(identifyRequest("stripe", { headers: {}, body: Buffer.from("not json") })).toEqual({ externalId: null, eventType: null });
    expect(identifyRequest("stripe", { headers: {}, body: json({ id: 42, type: ["x"] }) })).toEqual({ externalId: null, eventType: null });
    expect(identifyRequest("none", { headers: {}, body: json({ id: "evt_1" }) })).toEqual({ externalId: null, eventType: null });
  });
});
