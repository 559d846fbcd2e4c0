// The most common scheme: an HMAC of the body alone in one header, perhaps after a prefix such as
// `sha256=`. No timestamp is signed, so no window applies: a replayed request is caught only by its
// dedupe key. Providers that sign this way (Intercom, Meta, Typeform, Vercel, …) say only where
// each part is, and how to read their event id and type once the signature is accepted.
import { hmac, malformed, requireHeader, requireSignatureMatch, type DigestEncoding, type HmacAlgorithm } from "@/lib/signatures/hmac";
import type { SignatureVerifier, VerifiedRequest, VerifyInput } from "@/lib/signatures/types";

export type Guide = Pick<SignatureVerifier, "displayName" | "secretLabel" | "setupHint">;

export interface BodyHmacScheme {
  /** The header, spelled as the provider's docs spell it. */
  header: string;
  prefix?: string;
  algorithm: HmacAlgorithm;
  encoding: DigestEncoding;
  /** The dedupe key and event type, read once the signature is accepted. */
  describe(input: VerifyInput): VerifiedRequest;
}

export function bodyHmacVerifier(guide: Guide, scheme: BodyHmacScheme): SignatureVerifier {
  const prefix = scheme.prefix ?? "";
  return {
    ...guide,
    verify(input) {
      const header = requireHeader(input, scheme.header);
      if (!header.startsWith(prefix)) throw malformed(`${scheme.header} is not of the form ${prefix}<${scheme.encoding}>`);
      const signature = header.slice(prefix.length);
      // Hex is case-insensitive; base64 is not.
      const received = scheme.encoding === "hex" ? signature.toLowerCase() : signature;
      requireSignatureMatch(input.secrets, [received], (secret) => hmac(scheme.algorithm, secret, scheme.encoding, input.body));
      return scheme.describe(input);
    },
  };
}
