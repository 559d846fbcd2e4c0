// Resend: the Svix scheme (`svix-id`, `svix-timestamp`, `svix-signature`); Resend sends its webhooks
// through Svix, and the resend SDK's webhooks.verify checks exactly that.
import { standardWebhooksVerifier } from "@/lib/signatures/standard-webhooks";

export const resend = standardWebhooksVerifier("svix", {
  displayName: "Resend",
  secretLabel: "Signing secret",
  setupHint: "Resend → Webhooks → Add Webhook with the ingest URL, then paste its Signing Secret (whsec_…).",
});
