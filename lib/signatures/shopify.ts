// Shopify: `X-Shopify-Hmac-Sha256: <base64>`, HMAC-SHA256 of the body under the app's client secret
// (or the webhook signing secret shown in the admin). No timestamp is signed. `X-Shopify-Event-Id`
// names the event across retries; older deliveries only carry `X-Shopify-Webhook-Id`.
import { hmac, optionalHeader, requireHeader, requireSignatureMatch } from "@/lib/signatures/hmac";
import type { IdentifyInput, RequestIdentity, SignatureVerifier } from "@/lib/signatures/types";

/** The event id (else the webhook id) and the topic, in their headers. */
function identify(input: IdentifyInput): RequestIdentity {
  return {
    externalId: optionalHeader(input, "x-shopify-event-id") ?? optionalHeader(input, "x-shopify-webhook-id"),
    eventType: optionalHeader(input, "x-shopify-topic"),
  };
}

export const shopify: SignatureVerifier = {
  displayName: "Shopify",
  secretLabel: "Client secret",
  setupHint: "The app's client secret (Partners → Apps → your app → Client credentials), or for webhooks made in the admin the key shown under Settings → Notifications → Webhooks.",
  verify(input) {
    const received = requireHeader(input, "X-Shopify-Hmac-Sha256");
    requireSignatureMatch(input.secrets, [received], (secret) => hmac("sha256", secret, "base64", input.body));
    return identify(input);
  },
  identify,
};
