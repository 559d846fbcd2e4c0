// Twilio: `X-Twilio-Signature: <base64>`, an HMAC of the URL Twilio requested (ours: APP_URL + path
// + query) followed by the form parameters sorted by name, each as name + value, under the account's
// Auth Token; HMAC-SHA1 unless `X-Twilio-Webhooks-Signature-Settings` names HMAC_SHA256. A JSON body
// is not in the signed text: Twilio puts `bodySHA256=<hex>` in the URL, and the body must hash to it.
// As the twilio SDK's validateRequest, the URL is tried with and without its default port (Twilio
// may sign either). No timestamp is signed. `I-Twilio-Idempotency-Token` names a request across retries.
import { SignatureError } from "@/lib/errors";
import { hmac, malformed, optionalHeader, requireHeader, requireSignatureMatch, safeEqual, sha256Hex, splitOnce, type HmacAlgorithm } from "@/lib/signatures/hmac";
import type { SignatureVerifier, VerifyInput } from "@/lib/signatures/types";

const SETTINGS = "X-Twilio-Webhooks-Signature-Settings";

function algorithm(input: VerifyInput): HmacAlgorithm {
  const named = (optionalHeader(input, SETTINGS) ?? "")
    .split(",")
    .map((part) => splitOnce(part, "=").map((side) => side.trim()))
    .find(([key]) => key === "algorithm")?.[1];
  if (!named || named.toUpperCase() === "HMAC_SHA1") return "sha1";
  if (named.toUpperCase() === "HMAC_SHA256") return "sha256";
  throw malformed(`${SETTINGS} names an algorithm Twilio does not document`);
}

/** Form parameters as Twilio signs them: by name, then each name's distinct values in order, as name + value. */
function signedParameters(input: VerifyInput): string {
  if (!/^application\/x-www-form-urlencoded\b/i.test(input.headers["content-type"] ?? "")) return "";
  const byName = new Map<string, Set<string>>();
  for (const [name, value] of new URLSearchParams(input.body.toString("utf8"))) byName.set(name, (byName.get(name) ?? new Set()).add(value));
  return [...byName.keys()].sort().map((name) => [...byName.get(name)!].sort().map((value) => name + value).join("")).join("");
}

/** The URL as given, without its port, and with the scheme's default port. */
function portVariants(url: string): string[] {
  const parts = /^(https?:\/\/)([^/?#]*?)(:\d+)?([/?#].*)?$/i.exec(url);
  if (!parts) return [url];
  const [, scheme, host, , rest = ""] = parts;
  const port = scheme!.toLowerCase() === "https://" ? ":443" : ":80";
  return [...new Set([url, scheme + host! + rest, scheme + host! + port + rest])];
}

export const twilio: SignatureVerifier = {
  displayName: "Twilio",
  secretLabel: "Auth Token",
  setupHint: "Console → Account → API keys & tokens → Auth Token (the primary one). Use the ingest URL as the webhook URL of your number, messaging service or callback.",
  verify(input) {
    const received = requireHeader(input, "X-Twilio-Signature");
    const hash = algorithm(input);
    const bodySha256 = new URL(input.url).searchParams.get("bodySHA256");
    const parameters = bodySha256 === null ? signedParameters(input) : "";
    const urls = portVariants(input.url);
    requireSignatureMatch(input.secrets, [received], (secret) => urls.map((url) => hmac(hash, secret, "base64", url, parameters)));
    if (bodySha256 !== null && !safeEqual(bodySha256.toLowerCase(), sha256Hex(input.body))) {
      throw new SignatureError("invalid_signature", "the body does not hash to the bodySHA256 the signature covers — something changed the body on its way");
    }
    return { externalId: optionalHeader(input, "i-twilio-idempotency-token"), eventType: null };
  },
};
