import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { buildOutboundHeaders } from "./outbound-headers";

const body = Buffer.from('{"type":"invoice.paid","id":"evt_1"}');

describe("forwards the original headers without hop-by-hop ones", () => {
  const headers = buildOutboundHeaders({
    stored: {
      "content-type": "application/json",
      "stripe-signature": "t=1,v1=abc",
      Host: "inbox.example.com",
      "content-length": "36",
      connection: "keep-alive, x-private-hop",
      "keep-alive": "timeout=5",
      "transfer-encoding": "chunked",
      upgrade: "h2c",
      te: "trailers",
      "proxy-authorization": "Basic x",
      "x-private-hop": "1",
      expect: "100-continue",
      "x-inbox-delivery-id": "forged",
    },
    deliveryId: "dlv_1", destinationId: "dst_1",
    attemptNumber: 3,
    body,
  });

  it("keeps the provider's headers so the tenant's verification still works", () => {
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["stripe-signature"]).toBe("t=1,v1=abc");
  });

  it("drops host, content-length, hop-by-hop headers and those Connection names", () => {
    for (const name of ["host", "Host", "content-length", "connection", "keep-alive", "transfer-encoding", "upgrade", "te", "proxy-authorization", "x-private-hop", "expect"]) {
      expect(headers[name]).toBeUndefined();
    }
  });

  it("adds a stable delivery id, its destination and the 1-based attempt number, replacing forged ones", () => {
    expect(headers["x-inbox-delivery-id"]).toBe("dlv_1");
    expect(headers["x-inbox-destination-id"]).toBe("dst_1");
    expect(headers["x-inbox-attempt"]).toBe("3");
  });
});

describe("signs outbound with Standard Webhooks when the endpoint has an outbound secret", () => {
  const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

  it("produces headers the standardwebhooks SDK verifies, over the exact bytes", () => {
    const headers = buildOutboundHeaders({
      stored: { "webhook-id": "msg_original", "webhook-signature": "v1,old", "content-type": "application/json" },
      deliveryId: "dlv_2", destinationId: "dst_2",
      attemptNumber: 1,
      body,
      outboundSecret: secret,
    });
    expect(headers["webhook-id"]).toBe("dlv_2");
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(new Webhook(secret).verify(body.toString(), headers)).toEqual({ type: "invoice.paid", id: "evt_1" });
  });

  it("signs with the same id on every attempt, so the destination can dedupe", () => {
    const first = buildOutboundHeaders({ stored: {}, deliveryId: "dlv_3", destinationId: "dst_3", attemptNumber: 1, body, outboundSecret: secret });
    const second = buildOutboundHeaders({ stored: {}, deliveryId: "dlv_3", destinationId: "dst_3", attemptNumber: 2, body, outboundSecret: secret });
    expect(second["webhook-id"]).toBe(first["webhook-id"]);
  });

  it("refuses a secret that is not base64", () => {
    expect(() => buildOutboundHeaders({ stored: {}, deliveryId: "d", destinationId: "dst_d", attemptNumber: 1, body, outboundSecret: "whsec_" })).toThrow(/not a base64/);
  });
});
