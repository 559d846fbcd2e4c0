import { createHmac } from "node:crypto";
import { WebhooksHelper } from "square";
import { describe, expect, it } from "vitest";
import { square } from "@/lib/signatures/square";
import { expectRejected, INGEST_URL, request } from "@/test/signature-requests";

const KEY = "square-signature-key-current";
const PREVIOUS = "square-signature-key-previous";
const BODY = JSON.stringify({ merchant_id: "M1", type: "payment.updated", event_id: "6a8f5f28-54a1-4eb0-a98a-3111513fd4fc", data: { id: "P1" } });

// Our signer, from Square's "Verify and validate an event notification"
// (https://developer.squareup.com/docs/webhooks/step3validate): HMAC-SHA256 of notification URL + body, base64.
function signed(opts: { key?: string; url?: string; body?: string } = {}) {
  const { key = KEY, url = INGEST_URL, body = BODY } = opts;
  const signature = createHmac("sha256", key).update(url + body).digest("base64");
  return request({ body: Buffer.from(body), headers: { "x-square-hmacsha256-signature": signature }, url: INGEST_URL, secrets: [KEY] });
}

const sdkAccepts = (input: ReturnType<typeof signed>, key = KEY) =>
  WebhooksHelper.verifySignature({ requestBody: input.body.toString(), signatureHeader: input.headers["x-square-hmacsha256-signature"]!, signatureKey: key, notificationUrl: INGEST_URL });

describe("square", () => {
  it("accepts what the square SDK's WebhooksHelper accepts, and reads event_id and type", async () => {
    const input = signed();
    expect(await sdkAccepts(input)).toBe(true);
    expect(square.verify(input)).toEqual({ externalId: "6a8f5f28-54a1-4eb0-a98a-3111513fd4fc", eventType: "payment.updated" });
  });

  it("rejects a tampered body, as the SDK does", async () => {
    const input = { ...signed(), body: Buffer.from(BODY.replace("P1", "P2")) };
    expect(await sdkAccepts(input)).toBe(false);
    expectRejected(square, input, "invalid_signature");
  });

  it("rejects a request signed for another notification URL", async () => {
    const input = signed({ url: "https://elsewhere.example.com/in/ep_test" });
    expect(await sdkAccepts(input)).toBe(false);
    expectRejected(square, input, "invalid_signature");
  });

  it("accepts the previous key during rotation and rejects a wrong one", () => {
    expect(square.verify({ ...signed({ key: PREVIOUS }), secrets: [KEY, PREVIOUS] }).eventType).toBe("payment.updated");
    expectRejected(square, { ...signed(), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it("rejects a request without the signature header as missing_signature", () => {
    expectRejected(square, { ...signed(), headers: {} }, "missing_signature");
  });
});
