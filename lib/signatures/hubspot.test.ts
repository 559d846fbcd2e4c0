import { createHmac } from "node:crypto";
import { Signature } from "@hubspot/api-client";
import { describe, expect, it } from "vitest";
import { hubspot } from "@/lib/signatures/hubspot";
import { expectRejected, INGEST_URL, request } from "@/test/signature-requests";

const SECRET = "yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy";
const PREVIOUS = "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz";
const EVENTS = [
  { eventId: 1001, subscriptionType: "contact.creation", objectId: 51, occurredAt: 1772452800000 },
  { eventId: 1002, subscriptionType: "contact.propertyChange", objectId: 51, occurredAt: 1772452800001 },
];

// Our signer, from HubSpot's "Validate the v3 request signature"
// (https://developers.hubspot.com/docs/apps/legacy-apps/authentication/validating-requests): base64 HMAC-SHA256
// of method + URI + body + timestamp (ms). The SDK checks the timestamp against the real clock, so it is now.
function signed(opts: { secret?: string; events?: object[]; url?: string; at?: number } = {}) {
  const { secret = SECRET, events = EVENTS, url = INGEST_URL, at = Date.now() } = opts;
  const body = JSON.stringify(events);
  const headers = { "x-hubspot-signature-v3": createHmac("sha256", secret).update(`POST${url}${body}${at}`).digest("base64"), "x-hubspot-request-timestamp": String(at) };
  return request({ body: Buffer.from(body), headers, url, secrets: [SECRET], now: new Date(at) });
}

const sdkAccepts = (input: ReturnType<typeof signed>) =>
  Signature.isValid({
    signatureVersion: "v3", method: "POST", clientSecret: SECRET, url: input.url, requestBody: input.body.toString(),
    signature: input.headers["x-hubspot-signature-v3"]!, timestamp: Number(input.headers["x-hubspot-request-timestamp"]),
  });

describe("hubspot", () => {
  it("accepts what @hubspot/api-client's Signature.isValid (v3) accepts; a batch is keyed by its events' ids", () => {
    const input = signed();
    expect(sdkAccepts(input)).toBe(true);
    const verified = hubspot.verify(input);
    expect(verified.eventType).toBe("contact.creation");
    expect(verified.externalId).toMatch(/^[0-9a-f]{64}$/);
    expect(hubspot.verify(signed()).externalId).toBe(verified.externalId); // the same batch again is a duplicate
  });

  it("keys a batch of one event by its eventId", () => {
    expect(hubspot.verify(signed({ events: [EVENTS[0]!] })).externalId).toBe("1001");
  });

  it("rejects a tampered body, as the SDK does", () => {
    const input = { ...signed(), body: Buffer.from(JSON.stringify([EVENTS[1]])) };
    expect(sdkAccepts(input)).toBe(false);
    expectRejected(hubspot, input, "invalid_signature");
  });

  it("verifies over the URI with the characters HubSpot decodes before signing decoded", () => {
    const decoded = `${INGEST_URL}?team=a:b,c`;
    const input = signed({ url: decoded });
    expect(hubspot.verify({ ...input, url: `${INGEST_URL}?team=a%3Ab%2Cc` }).eventType).toBe("contact.creation");
  });

  it("rejects a request signed for another URL or method", () => {
    const input = signed({ url: "https://elsewhere.example.com/in/ep_test" });
    expectRejected(hubspot, { ...input, url: INGEST_URL }, "invalid_signature");
    expectRejected(hubspot, { ...signed(), method: "PUT" }, "invalid_signature");
  });

  it("accepts the previous secret during rotation and rejects a wrong one", () => {
    expect(hubspot.verify({ ...signed({ secret: PREVIOUS }), secrets: [SECRET, PREVIOUS] }).eventType).toBe("contact.creation");
    expectRejected(hubspot, { ...signed(), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it("rejects a stale timestamp, and one in seconds rather than milliseconds", () => {
    const at = Date.now();
    expectRejected(hubspot, { ...signed({ at }), now: new Date(at + 301_000) }, "timestamp_out_of_tolerance");
    const input = signed();
    expectRejected(hubspot, { ...input, headers: { ...input.headers, "x-hubspot-request-timestamp": "1772452800.5" } }, "invalid_signature");
  });

  it("rejects a request without X-HubSpot-Signature-v3 as missing_signature", () => {
    const input = signed();
    delete input.headers["x-hubspot-signature-v3"];
    expectRejected(hubspot, input, "missing_signature");
  });
});
