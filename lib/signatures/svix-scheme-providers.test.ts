// Clerk and Resend send through Svix; each SDK's own verifier is checked against our signer, then ours.
import { createHmac } from "node:crypto";
import { verifyWebhook } from "@clerk/backend/webhooks";
import { Resend } from "resend";
import { describe, expect, it } from "vitest";
import { clerk } from "@/lib/signatures/clerk";
import { resend } from "@/lib/signatures/resend";
import { expectRejected, INGEST_URL, request } from "@/test/signature-requests";

const SECRET = `whsec_${Buffer.from("svix-scheme-signing-secret-32byte").toString("base64")}`;
const PREVIOUS = `whsec_${Buffer.from("svix-scheme-previous-secret-32byt").toString("base64")}`;

// Our signer, from Svix's "Verifying webhooks manually" (https://docs.svix.com/receiving/verifying-payloads/how-manual):
// base64 HMAC-SHA256 of `${id}.${timestamp}.${body}` under the base64-decoded secret. The SDKs check the real clock.
function signed(body: string, secret = SECRET) {
  const id = "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W";
  const at = Math.floor(Date.now() / 1000);
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${at}.${body}`).digest("base64");
  const headers = { "svix-id": id, "svix-timestamp": String(at), "svix-signature": `v1,${signature}` };
  return request({ body: Buffer.from(body), headers, secrets: [SECRET], now: new Date(at * 1000) });
}

const clerkAccepts = (input: ReturnType<typeof signed>) =>
  verifyWebhook(new Request(INGEST_URL, { method: "POST", body: input.body.toString(), headers: input.headers }), { signingSecret: SECRET }).then(() => true, () => false);

function resendAccepts(input: ReturnType<typeof signed>): boolean {
  const headers = { id: input.headers["svix-id"], timestamp: input.headers["svix-timestamp"], signature: input.headers["svix-signature"] };
  try {
    new Resend("re_test_key").webhooks.verify({ payload: input.body.toString(), headers: headers as Parameters<Resend["webhooks"]["verify"]>[0]["headers"], webhookSecret: SECRET });
    return true;
  } catch {
    return false;
  }
}

describe("clerk", () => {
  const body = JSON.stringify({ type: "user.created", object: "event", data: { id: "user_29w83sxmDNGwOuEthce5gg56FcC" } });

  it("accepts what @clerk/backend's verifyWebhook accepts, and reads svix-id and the type", async () => {
    const input = signed(body);
    expect(await clerkAccepts(input)).toBe(true);
    expect(clerk.verify(input)).toEqual({ externalId: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", eventType: "user.created" });
  });

  it("rejects a tampered body, as the SDK does, and accepts the previous secret during rotation", async () => {
    const input = { ...signed(body), body: Buffer.from(body.replace("created", "deleted")) };
    expect(await clerkAccepts(input)).toBe(false);
    expectRejected(clerk, input, "invalid_signature");
    expect(clerk.verify({ ...signed(body, PREVIOUS), secrets: [SECRET, PREVIOUS] }).eventType).toBe("user.created");
  });
});

describe("resend", () => {
  const body = JSON.stringify({ type: "email.delivered", created_at: "2026-03-02T12:00:00.000Z", data: { email_id: "56761188-7520-42d8-8898-ff6fc54ce618" } });

  it("accepts what the resend SDK's webhooks.verify accepts, and reads svix-id and the type", () => {
    const input = signed(body);
    expect(resendAccepts(input)).toBe(true);
    expect(resend.verify(input)).toEqual({ externalId: "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W", eventType: "email.delivered" });
  });

  it("rejects a tampered body, as the SDK does, and a wrong secret", () => {
    const input = { ...signed(body), body: Buffer.from(body.replace("delivered", "bounced")) };
    expect(resendAccepts(input)).toBe(false);
    expectRejected(resend, input, "invalid_signature");
    expectRejected(resend, { ...signed(body), secrets: [PREVIOUS] }, "invalid_signature");
  });
});
