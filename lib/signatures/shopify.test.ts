import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { shopify } from "@/lib/signatures/shopify";
import { expectRejected, request } from "@/test/signature-requests";

// No Shopify SDK is installed here; this signer is written from Shopify's docs (base64 HMAC-SHA256
// of the raw body), independently of the verifier.
const SECRET = "shpss_current_client_secret";
const PREVIOUS = "shpss_previous_client_secret";
const BODY = JSON.stringify({ id: 450789469, email: "jon@example.com" });
const hmacBase64 = (secret: string, body: string) => createHmac("sha256", secret).update(body, "utf8").digest("base64");

function signed(secret = SECRET, extra: Record<string, string> = {}) {
  const headers = {
    "x-shopify-hmac-sha256": hmacBase64(secret, BODY),
    "x-shopify-topic": "orders/create",
    "x-shopify-webhook-id": "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043",
    ...extra,
  };
  return request({ body: Buffer.from(BODY), headers, secrets: [SECRET] });
}

describe("shopify", () => {
  it("accepts a signed request and prefers X-Shopify-Event-Id as the id", () => {
    const input = signed(SECRET, { "x-shopify-event-id": "98880550-7158-44d4-b7cd-2c97c8a091b5" });
    expect(shopify.verify(input)).toEqual({ externalId: "98880550-7158-44d4-b7cd-2c97c8a091b5", eventType: "orders/create" });
  });

  it("falls back to X-Shopify-Webhook-Id when there is no event id", () => {
    expect(shopify.verify(signed()).externalId).toBe("b54557e4-bdd9-4b37-8a5f-bf7d70bcd043");
  });

  it("accepts the previous secret during rotation", () => {
    expect(shopify.verify({ ...signed(PREVIOUS), secrets: [SECRET, PREVIOUS] }).eventType).toBe("orders/create");
  });

  it("rejects a tampered body", () => {
    expectRejected(shopify, { ...signed(), body: Buffer.from(BODY.replace("jon", "eve")) }, "invalid_signature");
  });

  it("rejects a wrong secret", () => {
    expectRejected(shopify, { ...signed(), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it("rejects a hex digest where base64 is expected", () => {
    const input = signed();
    input.headers["x-shopify-hmac-sha256"] = createHmac("sha256", SECRET).update(BODY).digest("hex");
    expectRejected(shopify, input, "invalid_signature");
  });

  it("rejects a request without X-Shopify-Hmac-Sha256 as missing_signature", () => {
    const input = signed();
    delete input.headers["x-shopify-hmac-sha256"];
    expect(expectRejected(shopify, input, "missing_signature").message).toContain("X-Shopify-Hmac-Sha256");
  });
});
