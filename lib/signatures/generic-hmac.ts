// Generic HMAC: for senders with a plain "HMAC of the body in a header" scheme, described by the
// endpoint's settings (header, sha256/sha1, hex/base64, optional prefix such as `sha256=`).
// No timestamp is signed in this scheme, so no window applies: replays are caught only by the
// dedupe key, and only when the sender sends an id header (`idHeader`).
import { SignatureError } from "@/lib/errors";
import { hmac, malformed, optionalHeader, requireHeader, requireSignatureMatch } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier } from "@/lib/signatures/types";

export const genericHmac: SignatureVerifier = {
  displayName: "Generic HMAC",
  secretLabel: "Shared secret",
  setupHint: "The secret the sender signs with; describe its signature header, algorithm and encoding below.",
  verify(input) {
    const config = input.genericHmac;
    if (!config) {
      throw new SignatureError(
        "invalid_signature",
        "this endpoint has no generic HMAC settings (header, algorithm, encoding) — set them in the endpoint's settings",
      );
    }
    const header = requireHeader(input, config.header);
    const prefix = config.prefix ?? "";
    if (!header.startsWith(prefix)) throw malformed(`${config.header} does not start with "${prefix}"`);
    const signature = header.slice(prefix.length).trim();
    // Hex is case-insensitive; base64 is not.
    const received = config.encoding === "hex" ? signature.toLowerCase() : signature;
    requireSignatureMatch(input.secrets, [received], (secret) => hmac(config.algorithm, secret, config.encoding, input.body));
    return {
      externalId: config.idHeader ? optionalHeader(input, config.idHeader) : null,
      eventType: stringField(readJsonObject(input.body), "type"),
    };
  },
};
