// Two HMAC-SHA256 schemes that sign a Unix-seconds timestamp together with the body, each used by more
// than one provider: Stripe's (Calendly copies it) and Slack's (Zoom copies it). Each checks the
// signature against every current secret, then the timestamp against the endpoint's tolerance.
import { hmac, malformed, parseUnixSeconds, requireFreshTimestamp, requireHeader, requireSignatureMatch, splitOnce } from "@/lib/signatures/hmac";
import type { VerifyInput } from "@/lib/signatures/types";

/**
 * `<header>: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, HMAC of `${t}.${body}`. Any v1 matching is enough (a
 * sender rolling its secret sends one per secret); other schemes in the header (v0, …) are ignored.
 */
export function verifyStripeScheme(input: VerifyInput, header: string): void {
  const value = requireHeader(input, header);
  let t: string | null = null;
  const v1: string[] = [];
  for (const item of value.split(",")) {
    const [key, part] = splitOnce(item.trim(), "=");
    if (key === "t" && t === null) t = part;
    else if (key === "v1" && part) v1.push(part.toLowerCase());
  }
  if (t === null) throw malformed(`${header} has no t=<timestamp>`);
  const timestamp = parseUnixSeconds(t, `the t= timestamp in ${header}`);
  if (v1.length === 0) throw malformed(`${header} has no v1=<signature>`);
  requireSignatureMatch(input.secrets, v1, (secret) => hmac("sha256", secret, "hex", `${t}.`, input.body));
  requireFreshTimestamp(timestamp, input);
}

const V0 = "v0=";

/** `<signatureHeader>: v0=<hex>`, HMAC of `v0:${timestampHeader}:${body}`. Returns the secret that matched. */
export function verifySlackScheme(input: VerifyInput, signatureHeader: string, timestampHeader: string): string {
  const value = requireHeader(input, signatureHeader);
  const t = requireHeader(input, timestampHeader);
  const timestamp = parseUnixSeconds(t, timestampHeader);
  if (!value.startsWith(V0)) throw malformed(`${signatureHeader} is not of the form ${V0}<hex>`);
  const received = value.slice(V0.length).toLowerCase();
  const secret = requireSignatureMatch(input.secrets, [received], (candidate) => hmac("sha256", candidate, "hex", `v0:${t}:`, input.body));
  requireFreshTimestamp(timestamp, input);
  return secret;
}
