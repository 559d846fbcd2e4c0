// Stripe: `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…][,v0=…]`, HMAC-SHA256 of
// `${t}.${body}` keyed with the whole `whsec_…` string. Stripe sends one v1 per active secret while
// a secret is being rolled; any one matching is enough. Other schemes (v0, the test-mode scheme) are ignored.
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import { verifyStripeScheme } from "@/lib/signatures/timestamped-hmac";
import type { IdentifyInput, RequestIdentity, SignatureVerifier } from "@/lib/signatures/types";

const HEADER = "Stripe-Signature";

/** The event's `id` and `type` in the JSON body. */
function identify(input: IdentifyInput): RequestIdentity {
  const event = readJsonObject(input.body);
  return { externalId: stringField(event, "id"), eventType: stringField(event, "type") };
}

export const stripe: SignatureVerifier = {
  displayName: "Stripe",
  secretLabel: "Signing secret",
  setupHint: "Dashboard → Developers → Webhooks → Add endpoint with the ingest URL, then paste its signing secret (whsec_…).",
  verify(input) {
    verifyStripeScheme(input, HEADER);
    return identify(input);
  },
  identify,
};
