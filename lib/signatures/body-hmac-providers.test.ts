// Providers that sign the body alone with an HMAC and have no official SDK verifier: our signer
// follows each provider's docs (cited per row), independently of the verifier under test.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { gitlab } from "@/lib/signatures/gitlab";
import { intercom } from "@/lib/signatures/intercom";
import { lemonsqueezy } from "@/lib/signatures/lemonsqueezy";
import { meta } from "@/lib/signatures/meta";
import { pagerduty } from "@/lib/signatures/pagerduty";
import { sentry } from "@/lib/signatures/sentry";
import { expectRejected, request } from "@/test/signature-requests";
import { typeform } from "@/lib/signatures/typeform";
import type { SignatureVerifier, VerifiedRequest } from "@/lib/signatures/types";
import { vercel } from "@/lib/signatures/vercel";
import { woocommerce } from "@/lib/signatures/woocommerce";

interface Case {
  verifier: SignatureVerifier;
  doc: string;
  header: string;
  sign: (secret: string, body: string) => string;
  body: string;
  otherHeaders?: Record<string, string>;
  expected: VerifiedRequest;
}

const mac = (algorithm: "sha1" | "sha256", encoding: "hex" | "base64") => (secret: string, body: string) => createHmac(algorithm, secret).update(body).digest(encoding);
const BODY_HASH = /^[0-9a-f]{64}$/;

const CASES: Record<string, Case> = {
  intercom: {
    verifier: intercom, doc: "https://developers.intercom.com/docs/references/webhooks/webhook-models#signed-notifications",
    header: "x-hub-signature", sign: (s, b) => `sha1=${mac("sha1", "hex")(s, b)}`,
    body: JSON.stringify({ type: "notification_event", id: "notif_ccd8a4d2-c1d1-4b6f-a8c6-3fb1a7e4e2c1", topic: "conversation.user.created", data: {} }),
    expected: { externalId: "notif_ccd8a4d2-c1d1-4b6f-a8c6-3fb1a7e4e2c1", eventType: "conversation.user.created" },
  },
  typeform: {
    verifier: typeform, doc: "https://www.typeform.com/developers/webhooks/secure-your-webhooks/",
    header: "typeform-signature", sign: (s, b) => `sha256=${mac("sha256", "base64")(s, b)}`,
    body: JSON.stringify({ event_id: "01HQ3QFZ8QK3JX2J1RZ3T1Y1Z7", event_type: "form_response", form_response: { form_id: "lT4Z3j" } }),
    expected: { externalId: "01HQ3QFZ8QK3JX2J1RZ3T1Y1Z7", eventType: "form_response" },
  },
  meta: {
    verifier: meta, doc: "https://developers.facebook.com/docs/graph-api/webhooks/getting-started#validate-payloads",
    header: "x-hub-signature-256", sign: (s, b) => `sha256=${mac("sha256", "hex")(s, b)}`,
    body: JSON.stringify({ object: "whatsapp_business_account", entry: [{ id: "102290129340398", changes: [{ field: "messages", value: {} }] }] }),
    expected: { externalId: expect.stringMatching(BODY_HASH), eventType: "whatsapp_business_account" },
  },
  vercel: {
    verifier: vercel, doc: "https://vercel.com/docs/webhooks/webhooks-api#securing-webhooks",
    header: "x-vercel-signature", sign: mac("sha1", "hex"),
    body: JSON.stringify({ id: "uyjDn9XcW7YdeJtDsjHvEpRs", type: "deployment.succeeded", payload: {} }),
    expected: { externalId: "uyjDn9XcW7YdeJtDsjHvEpRs", eventType: "deployment.succeeded" },
  },
  sentry: {
    verifier: sentry, doc: "https://docs.sentry.io/organization/integrations/integration-platform/webhooks/#sentry-hook-signature",
    header: "sentry-hook-signature", sign: mac("sha256", "hex"),
    body: JSON.stringify({ action: "created", data: { issue: { id: "1" } } }),
    otherHeaders: { "request-id": "1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809", "sentry-hook-resource": "issue" },
    expected: { externalId: "1a2b3c4d-5e6f-7081-92a3-b4c5d6e7f809", eventType: "issue.created" },
  },
  lemonsqueezy: {
    verifier: lemonsqueezy, doc: "https://docs.lemonsqueezy.com/help/webhooks/signing-requests",
    header: "x-signature", sign: mac("sha256", "hex"),
    body: JSON.stringify({ meta: { event_name: "order_created" }, data: { type: "orders", id: "1" } }),
    expected: { externalId: expect.stringMatching(BODY_HASH), eventType: "order_created" },
  },
  woocommerce: {
    verifier: woocommerce, doc: "https://woocommerce.github.io/woocommerce-rest-api-docs/#webhooks (delivery headers)",
    header: "x-wc-webhook-signature", sign: mac("sha256", "base64"),
    body: JSON.stringify({ id: 727, status: "processing" }),
    otherHeaders: { "x-wc-webhook-delivery-id": "3b1c5e0b6e1c4f4c", "x-wc-webhook-topic": "order.created" },
    expected: { externalId: "3b1c5e0b6e1c4f4c", eventType: "order.created" },
  },
  pagerduty: {
    verifier: pagerduty, doc: "https://developer.pagerduty.com/docs/webhooks/webhook-signatures/",
    header: "x-pagerduty-signature", sign: (s, b) => `v1=${mac("sha256", "hex")(s, b)}`,
    body: JSON.stringify({ event: { id: "01DEN3ZBHLA7ZZ1A6FJW3IKCJ7", event_type: "incident.triggered", data: {} } }),
    expected: { externalId: "01DEN3ZBHLA7ZZ1A6FJW3IKCJ7", eventType: "incident.triggered" },
  },
  gitlab: {
    verifier: gitlab, doc: "https://docs.gitlab.com/user/project/integrations/webhooks/#validate-payloads-by-using-a-secret-token",
    header: "x-gitlab-token", sign: (s) => s,
    body: JSON.stringify({ object_kind: "push", ref: "refs/heads/main" }),
    otherHeaders: { "idempotency-key": "f6e2d0a1-91f4-4a5e-9c1b-7f6f0b1a2c3d", "x-gitlab-webhook-uuid": "other", "x-gitlab-event-uuid": "shared", "x-gitlab-event": "Push Hook" },
    expected: { externalId: "f6e2d0a1-91f4-4a5e-9c1b-7f6f0b1a2c3d", eventType: "Push Hook" },
  },
};

const SECRET = "provider-current-secret";
const PREVIOUS = "provider-previous-secret";

function signed(c: Case, secret = SECRET) {
  return request({ body: Buffer.from(c.body), headers: { ...c.otherHeaders, [c.header]: c.sign(secret, c.body) }, secrets: [SECRET] });
}

describe.each(Object.entries(CASES))("%s", (_, c) => {
  it(`accepts a request signed as documented (${c.doc}) and reads its id and type`, () => {
    expect(c.verifier.verify(signed(c))).toEqual(c.expected);
  });

  it("rejects a tampered body", () => {
    if (c.verifier === gitlab) return expect(c.verifier.verify({ ...signed(c), body: Buffer.from("{}") }).eventType).toBe("Push Hook"); // GitLab signs nothing: see gitlab.ts
    expectRejected(c.verifier, { ...signed(c), body: Buffer.from(c.body.replace("}", ',"x":1}')) }, "invalid_signature");
  });

  it("accepts the previous secret during rotation and rejects a wrong one", () => {
    expect(c.verifier.verify({ ...signed(c, PREVIOUS), secrets: [SECRET, PREVIOUS] })).toEqual(c.expected);
    expectRejected(c.verifier, { ...signed(c), secrets: [PREVIOUS] }, "invalid_signature");
  });

  it("rejects a request without its signature header as missing_signature", () => {
    const input = signed(c);
    delete input.headers[c.header];
    expectRejected(c.verifier, input, "missing_signature");
  });
});

describe("gitlab before 17.4 (no Idempotency-Key)", () => {
  it("keys on X-Gitlab-Webhook-UUID, not the X-Gitlab-Event-UUID that hooks of one event share", () => {
    const headers = { "x-gitlab-token": SECRET, "x-gitlab-webhook-uuid": "9b1f2c3d-0000-4000-8000-000000000001", "x-gitlab-event-uuid": "shared" };
    expect(gitlab.verify(request({ body: Buffer.from("{}"), headers, secrets: [SECRET] })).externalId).toBe("9b1f2c3d-0000-4000-8000-000000000001");
  });
});

describe("pagerduty", () => {
  it("accepts any v1 of several, as PagerDuty sends one per secret while rotating", () => {
    const c = CASES.pagerduty!;
    const header = `v1=${"0".repeat(64)},${c.sign(SECRET, c.body)}`;
    expect(pagerduty.verify(request({ body: Buffer.from(c.body), headers: { "x-pagerduty-signature": header }, secrets: [SECRET] })).eventType).toBe("incident.triggered");
  });
});
