import { createHash, createHmac } from "node:crypto";
import twilioSdk from "twilio";
import { describe, expect, it } from "vitest";
import { expectRejected, INGEST_URL, request } from "@/test/signature-requests";
import { twilio } from "@/lib/signatures/twilio";

const TOKEN = "twilio-auth-token-current";
const PREVIOUS = "twilio-auth-token-previous";
const PARAMS = { MessageSid: "SM1234567890abcdef", From: "+14158675309", To: "+18005551212", Body: "héllo & bye", MessageStatus: "delivered" };
const FORM = { "content-type": "application/x-www-form-urlencoded" };

// Our signer, written from Twilio's "Webhooks security" page (https://www.twilio.com/docs/usage/security):
// the URL, then each parameter name + value sorted by name, HMAC under the Auth Token, base64.
function twilioSignature(token: string, url: string, params: Record<string, string>, hash: "sha1" | "sha256" = "sha1"): string {
  const data = Object.keys(params).sort().reduce((text, name) => text + name + params[name], url);
  return createHmac(hash, token).update(data).digest("base64");
}

function formRequest(opts: { token?: string; url?: string; params?: Record<string, string> } = {}) {
  const { token = TOKEN, url = `${INGEST_URL}?source=sms`, params = PARAMS } = opts;
  const headers = { ...FORM, "x-twilio-signature": twilioSignature(token, url, params), "i-twilio-idempotency-token": "idem-1" };
  return request({ body: Buffer.from(new URLSearchParams(params).toString()), headers, url, secrets: [TOKEN] });
}

describe("twilio", () => {
  it("accepts Twilio's documented example (the signature validation snippet of its security docs)", () => {
    // https://www.twilio.com/docs/usage/security#explore-the-algorithm-yourself (TwilioDevEd/api-snippets signature_validation)
    const url = "https://mycompany.com/myapp.php?foo=1&bar=2";
    const params = { CallSid: "CA1234567890ABCDE", Caller: "+14158675309", Digits: "1234", From: "+14158675309", To: "+18005551212" };
    const signature = "RSOYDt4T1cUTdK1PDd93/VVr8B8=";
    expect(twilioSdk.validateRequest("12345", signature, url, params)).toBe(true);
    const input = request({ body: Buffer.from(new URLSearchParams(params).toString()), headers: { ...FORM, "x-twilio-signature": signature }, url, secrets: ["12345"] });
    expect(twilio.verify(input)).toEqual({ externalId: null, eventType: null });
  });

  it("accepts a form post that the twilio SDK's validateRequest accepts, over the URL with its query, and reads the idempotency token", () => {
    const input = formRequest();
    expect(twilioSdk.validateRequest(TOKEN, input.headers["x-twilio-signature"]!, input.url, PARAMS)).toBe(true);
    expect(twilio.verify(input)).toEqual({ externalId: "idem-1", eventType: null });
  });

  it("rejects a tampered parameter, as the SDK does", () => {
    const input = formRequest();
    const tampered = { ...PARAMS, Body: "hello & bye" };
    expect(twilioSdk.validateRequest(TOKEN, input.headers["x-twilio-signature"]!, input.url, tampered)).toBe(false);
    expectRejected(twilio, { ...input, body: Buffer.from(new URLSearchParams(tampered).toString()) }, "invalid_signature");
  });

  it("rejects a request signed for another URL (the signature covers where Twilio sent it)", () => {
    const input = formRequest({ url: "https://elsewhere.example.com/in/ep_test?source=sms" });
    expectRejected(twilio, { ...input, url: `${INGEST_URL}?source=sms` }, "invalid_signature");
  });

  it("accepts a URL signed with the default port, as the SDK does", () => {
    const signedUrl = "https://inbox.example.com:443/in/ep_test";
    const input = formRequest({ url: signedUrl });
    expect(twilioSdk.validateRequest(TOKEN, input.headers["x-twilio-signature"]!, INGEST_URL, PARAMS)).toBe(true);
    expect(twilio.verify({ ...input, url: INGEST_URL }).externalId).toBe("idem-1");
  });

  it("accepts a JSON body through bodySHA256, as validateRequestWithBody does, and rejects a body that does not hash to it", () => {
    const body = JSON.stringify({ type: "com.twilio.messaging.message.delivered", data: { sid: "SM1" } });
    const url = `${INGEST_URL}?bodySHA256=${createHash("sha256").update(body).digest("hex")}`;
    const headers = { "content-type": "application/json", "x-twilio-signature": twilioSignature(TOKEN, url, {}) };
    expect(twilioSdk.validateRequestWithBody(TOKEN, headers["x-twilio-signature"], url, body)).toBe(true);
    const input = request({ body: Buffer.from(body), headers, url, secrets: [TOKEN] });
    expect(twilio.verify(input).externalId).toBeNull();
    const tampered = body.replace("SM1", "SM2");
    expect(twilioSdk.validateRequestWithBody(TOKEN, headers["x-twilio-signature"], url, tampered)).toBe(false);
    expect(expectRejected(twilio, { ...input, body: Buffer.from(tampered) }, "invalid_signature").message).toContain("bodySHA256");
  });

  it("accepts HMAC-SHA256 when X-Twilio-Webhooks-Signature-Settings names it, as the SDK does", () => {
    const input = formRequest();
    const settings = "key=webhooks_sharedkey_1,algorithm=HMAC_SHA256";
    input.headers["x-twilio-webhooks-signature-settings"] = settings;
    input.headers["x-twilio-signature"] = twilioSignature(TOKEN, input.url, PARAMS, "sha256");
    expect(twilioSdk.validateRequest(TOKEN, input.headers["x-twilio-signature"], input.url, PARAMS, twilioSdk.getSignatureAlgorithm(settings))).toBe(true);
    expect(twilio.verify(input).externalId).toBe("idem-1");
    expectRejected(twilio, { ...input, headers: { ...input.headers, "x-twilio-webhooks-signature-settings": "algorithm=HMAC_MD5" } }, "invalid_signature");
  });

  it("accepts the previous token during rotation and rejects a wrong one", () => {
    expect(twilio.verify({ ...formRequest({ token: PREVIOUS }), secrets: [TOKEN, PREVIOUS] }).externalId).toBe("idem-1");
    expectRejected(twilio, { ...formRequest(), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it("rejects a request without X-Twilio-Signature as missing_signature", () => {
    const input = formRequest();
    delete input.headers["x-twilio-signature"];
    expect(expectRejected(twilio, input, "missing_signature").message).toContain("X-Twilio-Signature");
  });
});
