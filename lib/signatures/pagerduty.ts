// PagerDuty (v3 webhooks): `X-PagerDuty-Signature: v1=<hex>[,v1=<hex>…]`, HMAC-SHA256 of the body
// under the subscription's secret; one v1 per active secret while a secret is being rotated. No
// timestamp is signed. Dedupe on `event.id`; the type is `event.event_type`.
import { hmac, malformed, requireHeader, requireSignatureMatch, splitOnce } from "@/lib/signatures/hmac";
import { objectField, readJsonObject, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier } from "@/lib/signatures/types";

const HEADER = "X-PagerDuty-Signature";

export const pagerduty: SignatureVerifier = {
  displayName: "PagerDuty",
  secretLabel: "Signing secret",
  setupHint: "Integrations → Generic Webhooks (v3) → New Webhook with the ingest URL; paste the secret shown once after creating it.",
  verify(input) {
    const v1 = requireHeader(input, HEADER)
      .split(",")
      .map((item) => splitOnce(item.trim(), "="))
      .flatMap(([version, signature]) => (version === "v1" && signature ? [signature.toLowerCase()] : []));
    if (v1.length === 0) throw malformed(`${HEADER} has no v1=<signature>`);
    requireSignatureMatch(input.secrets, v1, (secret) => hmac("sha256", secret, "hex", input.body));
    const event = objectField(readJsonObject(input.body), "event");
    return { externalId: stringField(event, "id"), eventType: stringField(event, "event_type") };
  },
};
