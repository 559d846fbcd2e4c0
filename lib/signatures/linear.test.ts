import { createHmac } from "node:crypto";
import { LinearWebhookClient } from "@linear/sdk/webhooks";
import { describe, expect, it } from "vitest";
import { linear } from "@/lib/signatures/linear";
import { expectRejected, request } from "@/test/signature-requests";

const SECRET = "lin_wh_current_signing_secret";
const PREVIOUS = "lin_wh_previous_signing_secret";

// Our signer, from Linear's "Securing webhooks" (https://linear.app/developers/webhooks#securing-webhooks):
// `Linear-Signature` is the hex HMAC-SHA256 of the body; `webhookTimestamp` (ms) is inside it. The SDK
// checks it against the real clock, so it is now.
function signed(opts: { secret?: string; at?: number; extra?: Record<string, unknown> } = {}) {
  const { secret = SECRET, at = Date.now(), extra = {} } = opts;
  const body = JSON.stringify({ action: "create", type: "Issue", data: { id: "iss_1", title: "Bug" }, webhookTimestamp: at, ...extra });
  const headers = { "linear-signature": createHmac("sha256", secret).update(body).digest("hex"), "linear-delivery": "234d1a4e-b617-4388-90fe-adc3633d6b72", "linear-event": "Issue" };
  return request({ body: Buffer.from(body), headers, secrets: [SECRET], now: new Date(at) });
}

const sdkAccepts = (input: ReturnType<typeof signed>) => {
  try {
    return new LinearWebhookClient(SECRET).verify(input.body, input.headers["linear-signature"]!);
  } catch {
    return false;
  }
};

describe("linear", () => {
  it("accepts what @linear/sdk's LinearWebhookClient accepts, and reads Linear-Delivery and the type", () => {
    const input = signed();
    expect(sdkAccepts(input)).toBe(true);
    expect(linear.verify(input)).toEqual({ externalId: "234d1a4e-b617-4388-90fe-adc3633d6b72", eventType: "Issue.create" });
  });

  it("rejects a tampered body, as the SDK does", () => {
    const input = { ...signed(), body: Buffer.from(signed().body.toString().replace("Bug", "Fix")) };
    expect(sdkAccepts(input)).toBe(false);
    expectRejected(linear, input, "invalid_signature");
  });

  it("accepts the previous secret during rotation and rejects a wrong one", () => {
    expect(linear.verify({ ...signed({ secret: PREVIOUS }), secrets: [SECRET, PREVIOUS] }).eventType).toBe("Issue.create");
    expectRejected(linear, { ...signed(), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it("rejects a signed webhookTimestamp outside the tolerance, and a body without one", () => {
    const input = signed({ at: Date.now() - 301_000 });
    expectRejected(linear, { ...input, now: new Date() }, "timestamp_out_of_tolerance");
    expectRejected(linear, signed({ extra: { webhookTimestamp: "yesterday" } }), "invalid_signature");
  });

  it("rejects a request without Linear-Signature as missing_signature", () => {
    const input = signed();
    delete input.headers["linear-signature"];
    expectRejected(linear, input, "missing_signature");
  });
});
