import { ValidationError } from "@/lib/errors";
import { secretProblem, takesVerifyToken } from "@/lib/signatures";
import type { GenericHmacConfig, Provider } from "@/lib/signatures/types";
import { GENERATES_SECRET } from "./endpoint-input";
import { generateWebhookSecret } from "./generate-secret";

/**
 * Decides the secret an endpoint will verify with: the one given, a generated whsec_ for
 * Standard Webhooks/svix, none for `none`; refuses what cannot verify (a public key that does not
 * parse, for the providers that store one).
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
  throw new ValidationError(`secret: the ${provider} provider needs the signing secret ${provider} gave you.`);
}

export function assertProviderSettings(provider: Provider, genericHmac: GenericHmacConfig | null | undefined, verifyToken?: string | null): void {
  if (provider === "generic-hmac" && !genericHmac) {
    throw new ValidationError("genericHmac: the generic-hmac provider needs {header, algorithm, encoding, prefix?}.");
  }
  if (verifyToken && !takesVerifyToken(provider)) {
    throw new ValidationError(`verifyToken: the ${provider} provider has no GET handshake to answer; only meta endpoints take a verify token.`);
  }
}
