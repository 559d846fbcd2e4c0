// Calendly: `Calendly-Webhook-Signature: t=<unix seconds>,v1=<hex>`, HMAC-SHA256 of `${t}.${body}`
// under the webhook subscription's signing key. Calendly's events carry no id of their own, so a
// hash of the body stands in (a retry resends the same body); the type is the body's `event`.
import { sha256Hex } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import { verifyStripeScheme } from "@/lib/signatures/timestamped-hmac";
import type { SignatureVerifier } from "@/lib/signatures/types";

const HEADER = "Calendly-Webhook-Signature";

export const calendly: SignatureVerifier = {
  displayName: "Calendly",
  secretLabel: "Signing key",
  setupHint: "The signing_key you send when creating the webhook subscription (POST /webhook_subscriptions with url = the ingest URL); paste the same here.",
  verify(input) {
    verifyStripeScheme(input, HEADER);
    return { externalId: sha256Hex(input.body), eventType: stringField(readJsonObject(input.body), "event") };
  },
};
