// Clerk: the Svix scheme (`svix-id`, `svix-timestamp`, `svix-signature`); Clerk sends its webhooks
// through Svix, and @clerk/backend's verifyWebhook checks exactly that.
import { standardWebhooksVerifier } from "@/lib/signatures/standard-webhooks";

export const clerk = standardWebhooksVerifier("svix", {
  displayName: "Clerk",
  secretLabel: "Signing secret",
  setupHint: "Clerk Dashboard → Webhooks → Add Endpoint with the ingest URL, then paste its Signing Secret (whsec_…).",
});
