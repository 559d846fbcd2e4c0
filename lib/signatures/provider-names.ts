// Providers as people know them, for every place the dashboard names one; the API and the database
// keep the ids (API.md). A Record, so a new provider without a name fails to type-check.
import type { Provider } from "./types";

export const PROVIDER_NAMES: Record<Provider, string> = {
  "standard-webhooks": "Standard Webhooks",
  svix: "Svix",
  stripe: "Stripe",
  github: "GitHub",
  shopify: "Shopify",
  slack: "Slack",
  "generic-hmac": "Generic HMAC",
  none: "None (no verification)",
};

/** The provider's name; an id this build does not know is shown as it is. */
export function providerName(provider: string): string {
  return Object.hasOwn(PROVIDER_NAMES, provider) ? PROVIDER_NAMES[provider as Provider] : provider;
}
