// WooCommerce: `X-WC-Webhook-Signature: <base64>`, HMAC-SHA256 of the body under the webhook's
// secret. No timestamp is signed. Dedupe on `X-WC-Webhook-Delivery-ID`; the type is `X-WC-Webhook-Topic`.
import { bodyHmacVerifier } from "@/lib/signatures/body-hmac";
import { optionalHeader } from "@/lib/signatures/hmac";

export const woocommerce = bodyHmacVerifier(
  {
    displayName: "WooCommerce",
    secretLabel: "Secret",
    setupHint: "WooCommerce → Settings → Advanced → Webhooks → Add webhook: Delivery URL = the ingest URL; paste its Secret here.",
  },
  {
    header: "X-WC-Webhook-Signature",
    algorithm: "sha256",
    encoding: "base64",
    describe(input) {
      return { externalId: optionalHeader(input, "x-wc-webhook-delivery-id"), eventType: optionalHeader(input, "x-wc-webhook-topic") };
    },
  },
);
