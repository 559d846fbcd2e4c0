// Square: `x-square-hmacsha256-signature: <base64>`, HMAC-SHA256 of the notification URL (the URL
// Square posts to: our ingest URL as built from APP_URL, with its query) followed by the body, under
// the subscription's signature key (as the square SDK's WebhooksHelper.verifySignature). No timestamp
// is signed. Dedupe on the body's `event_id`; the type is `type`.
import { hmac, requireHeader, requireSignatureMatch } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier } from "@/lib/signatures/types";

export const square: SignatureVerifier = {
  displayName: "Square",
  secretLabel: "Signature key",
  setupHint: "Developer Console → your app → Webhooks → Subscriptions → Add subscription: URL = the ingest URL exactly; paste its Signature key.",
  verify(input) {
    const received = requireHeader(input, "x-square-hmacsha256-signature");
    requireSignatureMatch(input.secrets, [received], (secret) => hmac("sha256", secret, "base64", input.url, input.body));
    const event = readJsonObject(input.body);
    return { externalId: stringField(event, "event_id"), eventType: stringField(event, "type") };
  },
};
