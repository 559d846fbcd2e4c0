// The registry of signature schemes: one entry per provider, listed by hand so adding a provider
// is a visible change here, and a Provider without a verifier fails to type-check.
import { genericHmac } from "@/lib/signatures/generic-hmac";
import { github } from "@/lib/signatures/github";
import { none } from "@/lib/signatures/none";
import { shopify } from "@/lib/signatures/shopify";
import { slack } from "@/lib/signatures/slack";
import { standardWebhooks } from "@/lib/signatures/standard-webhooks";
import { stripe } from "@/lib/signatures/stripe";
import { svix } from "@/lib/signatures/svix";
import type { Provider, SignatureVerifier, VerifiedRequest, VerifyInput } from "@/lib/signatures/types";

export const verifiers: Record<Provider, SignatureVerifier> = {
  "standard-webhooks": standardWebhooks,
  svix,
  stripe,
  github,
  shopify,
  slack,
  "generic-hmac": genericHmac,
  none,
};

/** Verifies `input` under `provider`'s scheme. Throws SignatureError (401) when it does not prove its sender. */
export function verifySignature(provider: Provider, input: VerifyInput): VerifiedRequest {
  // Own properties only: a provider name read from the database must not reach Object.prototype.
  if (!Object.hasOwn(verifiers, provider)) throw new Error(`Unknown signature provider "${provider}".`);
  return verifiers[provider].verify(input);
}
