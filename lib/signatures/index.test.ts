import { describe, expect, it } from "vitest";
import { SignatureError } from "@/lib/errors";
import { answerGetHandshake, PROVIDERS, providerGuides, takesVerifyToken, verifySignature, type Provider } from "@/lib/signatures";
import { request } from "@/test/signature-requests";

describe("signature registry", () => {
  it("lists API.md's 30 providers, each with a name and what to paste where for the dashboard", () => {
    expect([...PROVIDERS].sort()).toEqual([
      "calendly", "clerk", "discord", "generic-hmac", "github", "gitlab", "hubspot", "intercom", "lemonsqueezy", "linear", "mailgun", "meta", "none", "paddle", "pagerduty",
      "resend", "sendgrid", "sentry", "shopify", "slack", "square", "standard-webhooks", "stripe", "svix", "twilio", "twitch", "typeform", "vercel", "woocommerce", "zoom",
    ]);
    const guides = providerGuides();
    expect(guides.map((guide) => guide.id)).toEqual(PROVIDERS);
    for (const guide of guides) {
      expect(guide.displayName, guide.id).not.toBe("");
      expect(guide.setupHint.length, guide.id).toBeGreaterThan(30);
    }
    expect(new Set(guides.map((guide) => guide.displayName)).size).toBe(30);
  });

  it("has a GET handshake and a verify token for meta only", () => {
    expect(PROVIDERS.filter(takesVerifyToken)).toEqual(["meta"]);
    const query = new URLSearchParams({ "hub.mode": "subscribe", "hub.verify_token": "t", "hub.challenge": "1" });
    expect(PROVIDERS.filter((provider) => answerGetHandshake(provider, { query, verifyToken: "t" }) !== null)).toEqual(["meta"]);
  });

  it.each(PROVIDERS.filter((p) => p !== "none"))("routes %s to a verifier that refuses an unsigned request", (provider) => {
    const input = request({
      body: Buffer.from('{"type":"x"}'),
      headers: { "content-type": "application/json" },
      secrets: ["whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQ="],
      genericHmac: { header: "x-signature", algorithm: "sha256", encoding: "hex" },
    });
    let thrown: unknown;
    try {
      verifySignature(provider, input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(SignatureError);
    expect((thrown as SignatureError).code).toBe("missing_signature");
  });

  it("routes none to a verifier that accepts anything", () => {
    expect(verifySignature("none", request({ body: Buffer.from("x"), headers: {} }))).toEqual({ externalId: null, eventType: null });
  });

  it("throws on a provider name it does not know, including Object.prototype keys", () => {
    const input = request({ body: Buffer.from("x"), headers: {} });
    expect(() => verifySignature("paypal" as Provider, input)).toThrow(/Unknown signature provider/);
    expect(() => verifySignature("constructor" as Provider, input)).toThrow(/Unknown signature provider/);
  });
});
