// Providers as people know them, for every place the dashboard names one; the API and the database
// keep the ids (API.md). Each provider's file holds its name (lib/signatures/index.ts).
import { verifiers, type Provider } from "./index";

/** The provider's name; an id this build does not know is shown as it is. */
export function providerName(provider: string): string {
  return Object.hasOwn(verifiers, provider) ? verifiers[provider as Provider].displayName : provider;
}
