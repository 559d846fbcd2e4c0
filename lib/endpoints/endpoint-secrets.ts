import { ValidationError } from "@/lib/errors";
import { secretProblem, takesVerifyToken } from "@/lib/signatures";
import { providerName } from "@/lib/signatures/provider-names";
import type { Provider } from "@/lib/signatures";
import type { GenericHmacConfig } from "@/lib/signatures/types";
import { GENERATES_SECRET } from "./endpoint-input";
import { generateWebhookSecret } from "./generate-secret";

/**
 * Decides the secret an endpoint will verify with: the one given, a generated whsec_ for
 * Standard Webhooks/svix, none for `none`; refuses what cannot verify (a public key that does not
 * parse, for the providers that store one). A provider that issues its own secret (Stripe, GitHub…) may be
 * given none yet: the endpoint awaits it (API.md), refusing and quarantining what arrives until it is set.
 */
export function resolveSecret(provider: Provider, given: string | undefined, hasStored = false): { secret: string | null; generated: boolean } {
  if (provider === "none") return { secret: null, generated: false };
  if (given) {
    const problem = secretProblem(provider, given);
    if (problem) throw new ValidationError(`secret: ${problem}.`);
    return { secret: given, generated: false };
  }
  if (hasStored) return { secret: null, generated: false };
  if (GENERATES_SECRET.has(provider)) return { secret: generateWebhookSecret(), generated: true };
  return { secret: null, generated: false };
}

export function assertProviderSettings(provider: Provider, genericHmac: GenericHmacConfig | null | undefined, verifyToken?: string | null): void {
  if (provider === "generic-hmac" && !genericHmac) {
    throw new ValidationError("genericHmac: Generic HMAC endpoints need the signature header, algorithm and encoding ({header, algorithm, encoding, prefix?}).");
  }
  if (verifyToken && !takesVerifyToken(provider)) {
    throw new ValidationError(`verifyToken: ${providerName(provider)} endpoints take no verify token: only Meta endpoints answer a GET handshake with one.`);
  }
}
