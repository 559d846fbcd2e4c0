// Shared pieces of every HMAC scheme: the digest, the constant-time comparison, header reading,
// the timestamp window, and the errors with messages a human can act on. Provider files only say
// where their scheme keeps each part.
//
// Order in every provider: read headers (missing_signature) → parse them (invalid_signature) →
// signature (invalid_signature) → timestamp window (timestamp_out_of_tolerance). The window comes
// last so "check the sender's clock" is only ever said about a request that really was signed with
// our secret; a forged stale request is told its signature is wrong.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { SignatureError } from "@/lib/errors";
import type { VerifyInput } from "@/lib/signatures/types";

export type HmacAlgorithm = "sha256" | "sha1";
export type DigestEncoding = "hex" | "base64";

/** HMAC of the parts, in order, under `key`. */
export function hmac(algorithm: HmacAlgorithm, key: string, encoding: DigestEncoding, ...parts: (string | Buffer)[]): string {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest(encoding);
}

export function sha256Hex(body: Buffer): string {
  return createHash("sha256").update(body).digest("hex");
}

/** Constant-time equality of two signatures as text; different lengths are simply unequal. */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Digest of a secret compared as itself (a token, not a signature): equal lengths, so timing tells nothing of its length. */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/**
 * Passes when some secret signs to one of the `received` signatures, and returns that secret (a
 * handshake may need it); throws invalid_signature otherwise. `sign` gives the expected signature
 * under a secret (or several, where the signed text has variants), or null when that secret cannot
 * be used. Empty secrets are skipped: an HMAC under an empty key is one anybody can make.
 */
export function requireSignatureMatch(secrets: string[], received: string[], sign: (secret: string) => string | readonly string[] | null): string {
  let usable = 0;
  for (const secret of secrets) {
    if (!secret) continue;
    const signed = sign(secret);
    if (signed === null) continue;
    usable++;
    const expected = typeof signed === "string" ? [signed] : signed;
    if (received.some((signature) => expected.some((candidate) => safeEqual(signature, candidate)))) return secret;
  }
  if (usable === 0) throw noUsableSecret();
  throw new SignatureError(
    "invalid_signature",
    "signature did not match — check the signing secret, and that nothing rewrites the body before it reaches us",
  );
}

/** invalid_signature for an endpoint whose stored secrets cannot verify anything. */
export function noUsableSecret(): SignatureError {
  return new SignatureError("invalid_signature", "this endpoint has no usable signing secret — set the provider's signing secret in the endpoint's settings");
}

/** The trimmed header value, or null when absent or empty. `name` may be in any case. */
export function optionalHeader(input: Pick<VerifyInput, "headers">, name: string): string | null {
  return input.headers[name.toLowerCase()]?.trim() || null;
}

/** The header value, or missing_signature naming the header as the provider spells it. */
export function requireHeader(input: VerifyInput, name: string): string {
  const value = optionalHeader(input, name);
  if (value === null) {
    throw new SignatureError("missing_signature", `the ${name} header is missing — the request is unsigned, or this endpoint is set to the wrong provider`);
  }
  return value;
}

/** invalid_signature for a header that is present but not in the provider's format. */
export function malformed(what: string): SignatureError {
  return new SignatureError("invalid_signature", `${what} — the request is not signed the way this provider signs`);
}

/** `a,b,c` split at the first separator: ["a", "b,c"]; without the separator, [text, ""]. */
export function splitOnce(text: string, separator: string): [string, string] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + separator.length)];
}

/** Unix seconds from a header; anything else (milliseconds, a date, a sign) is malformed. */
export function parseUnixSeconds(value: string, name: string): number {
  if (!/^\d{1,12}$/.test(value)) throw malformed(`${name} is not a Unix time in seconds`);
  return Number(value);
}

/** Unix milliseconds from a header (HubSpot), as whole seconds. */
export function parseUnixMilliseconds(value: string, name: string): number {
  if (!/^\d{1,15}$/.test(value)) throw malformed(`${name} is not a Unix time in milliseconds`);
  return Math.floor(Number(value) / 1000);
}

/** Throws timestamp_out_of_tolerance unless `seconds` is within ±toleranceSeconds of `now`. */
export function requireFreshTimestamp(seconds: number, input: Pick<VerifyInput, "now" | "toleranceSeconds">): void {
  const age = Math.floor(input.now.getTime() / 1000) - seconds;
  if (Math.abs(age) <= input.toleranceSeconds) return;
  const when = age > 0 ? `${age} s old` : `${-age} s in the future`;
  throw new SignatureError(
    "timestamp_out_of_tolerance",
    `timestamp ${when}, outside the allowed ±${input.toleranceSeconds} s — check the sender's clock, or this is a replayed request`,
  );
}
