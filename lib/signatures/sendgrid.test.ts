import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { EventWebhook } from "@sendgrid/eventwebhook";
import { describe, expect, it } from "vitest";
import { sendgrid } from "@/lib/signatures/sendgrid";
import { expectRejected, NOW_SECONDS, request } from "@/test/signature-requests";

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  // Base64 DER SPKI, as SendGrid shows its verification key.
  return { base64: publicKey.export({ format: "der", type: "spki" }).toString("base64"), privateKey };
}
const CURRENT = keyPair();
const PREVIOUS = keyPair();
const EVENTS = [
  { email: "a@example.com", event: "delivered", sg_event_id: "ZGVsaXZlcmVkLTAtMTk5NDIxMTI", timestamp: NOW_SECONDS },
  { email: "b@example.com", event: "open", sg_event_id: "b3Blbi0wLTE5OTQyMTEy", timestamp: NOW_SECONDS },
];
const BODY = `${JSON.stringify(EVENTS).split("},{").join("},\r\n{")}\r\n`;

// Our signer, from SendGrid's "Event Webhook security features"
// (https://www.twilio.com/docs/sendgrid/for-developers/tracking-events/getting-started-event-webhook-security-features):
// ECDSA P-256 / SHA-256 over timestamp + body, base64 DER in the header.
function signed(opts: { privateKey?: KeyObject; body?: string; at?: number } = {}) {
  const { privateKey = CURRENT.privateKey, body = BODY, at = NOW_SECONDS } = opts;
  const signature = sign("sha256", Buffer.from(`${at}${body}`), privateKey).toString("base64");
  const headers = { "x-twilio-email-event-webhook-signature": signature, "x-twilio-email-event-webhook-timestamp": String(at) };
  return request({ body: Buffer.from(body), headers, secrets: [CURRENT.base64] });
}

const sdkAccepts = (input: ReturnType<typeof signed>, key = CURRENT.base64) => {
  const webhook = new EventWebhook();
  const headers = input.headers;
  return webhook.verifySignature(webhook.convertPublicKeyToECDSA(key), input.body.toString(), headers["x-twilio-email-event-webhook-signature"]!, headers["x-twilio-email-event-webhook-timestamp"]!);
};

describe("sendgrid", () => {
  it("accepts SendGrid's own example (the @sendgrid/eventwebhook test vector)", () => {
    // node_modules/@sendgrid/eventwebhook/src/eventwebhook.spec.js, "should verify a valid single event signature"
    const body = `${JSON.stringify([{ email: "hello@world.com", event: "dropped", reason: "Bounced Address", sg_event_id: "ZHJvcC0xMDk5NDkxOS1MUnpYbF9OSFN0T0doUTRrb2ZTbV9BLTA", sg_message_id: "LRzXl_NHStOGhQ4kofSm_A.filterdrecv-p3mdw1-756b745b58-kmzbl-18-5F5FC76C-9.0", "smtp-id": "<LRzXl_NHStOGhQ4kofSm_A@ismtpd0039p1iad1.sendgrid.net>", timestamp: 1600112492 }])}\r\n`;
    const input = request({
      body: Buffer.from(body),
      headers: { "x-twilio-email-event-webhook-signature": "MEUCIGHQVtGj+Y3LkG9fLcxf3qfI10QysgDWmMOVmxG0u6ZUAiEAyBiXDWzM+uOe5W0JuG+luQAbPIqHh89M15TluLtEZtM=", "x-twilio-email-event-webhook-timestamp": "1600112502" },
      secrets: ["MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE83T4O/n84iotIvIW4mdBgQ/7dAfSmpqIM8kF9mN1flpVKS3GRqe62gw+2fNNRaINXvVpiglSI8eNEc6wEA3F+g=="],
      now: new Date(1600112502 * 1000),
    });
    expect(sendgrid.verify(input)).toEqual({ externalId: "ZHJvcC0xMDk5NDkxOS1MUnpYbF9OSFN0T0doUTRrb2ZTbV9BLTA", eventType: "dropped" });
  });

  it("accepts what @sendgrid/eventwebhook accepts; a batch is keyed by its events' ids", () => {
    const input = signed();
    expect(sdkAccepts(input)).toBe(true);
    const verified = sendgrid.verify(input);
    expect(verified).toEqual({ externalId: expect.stringMatching(/^[0-9a-f]{64}$/), eventType: "delivered" });
    expect(sendgrid.verify(signed({ at: NOW_SECONDS + 60 })).externalId).toBe(verified.externalId); // a retry of the batch
  });

  it("rejects a tampered body, as the SDK does", () => {
    const input = { ...signed(), body: Buffer.from(BODY.replace("open", "click")) };
    expect(sdkAccepts(input)).toBe(false);
    expectRejected(sendgrid, input, "invalid_signature");
  });

  it("rejects a signature by another key, and accepts the previous key during rotation", () => {
    const input = signed({ privateKey: PREVIOUS.privateKey });
    expect(sdkAccepts(input)).toBe(false);
    expectRejected(sendgrid, input, "invalid_signature");
    expect(sendgrid.verify({ ...input, secrets: [CURRENT.base64, PREVIOUS.base64] }).eventType).toBe("delivered");
  });

  it("rejects a stale timestamp, a signature that is not DER, and a missing header", () => {
    expectRejected(sendgrid, signed({ at: NOW_SECONDS - 301 }), "timestamp_out_of_tolerance");
    const input = signed();
    expectRejected(sendgrid, { ...input, headers: { ...input.headers, "x-twilio-email-event-webhook-signature": "AAAA" } }, "invalid_signature");
    expectRejected(sendgrid, { ...input, headers: {} }, "missing_signature");
  });

  it("accepts the key as PEM too, and tells a key that is not P-256 when it is set", () => {
    const pem = `-----BEGIN PUBLIC KEY-----\n${CURRENT.base64}\n-----END PUBLIC KEY-----\n`;
    expect(sendgrid.verify({ ...signed(), secrets: [pem] }).eventType).toBe("delivered");
    expect(sendgrid.secretProblem!(CURRENT.base64)).toBeNull();
    const ed25519 = generateKeyPairSync("ed25519").publicKey.export({ format: "der", type: "spki" }).toString("base64");
    expect(sendgrid.secretProblem!(ed25519)).toContain("verification key");
    expect(sendgrid.secretProblem!("a-shared-secret")).toContain("verification key");
  });
});
