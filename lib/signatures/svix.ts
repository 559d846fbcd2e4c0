// Svix: the Standard Webhooks scheme under `svix-id`, `svix-timestamp` and `svix-signature`
// (Svix wrote that standard; its SDK wraps the `standardwebhooks` package). Only the `svix-*`
// headers are read: an unbranded Svix sender uses `webhook-*`, which is the standard-webhooks provider.
import { standardWebhooksVerifier } from "@/lib/signatures/standard-webhooks";

export const svix = standardWebhooksVerifier("svix", {
  displayName: "Svix",
  secretLabel: "Signing secret",
  setupHint: "The endpoint's whsec_… signing secret from the sender's Svix portal, or leave empty to generate one to give them.",
});
