// Stripe: `Stripe-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…][,v0=…]`, HMAC-SHA256 of
// `${t}.${body}` keyed with the whole `whsec_…` string. Stripe sends one v1 per active secret while
// a secret is being rolled; any one matching is enough. Other schemes (v0, the test-mode scheme) are ignored.
import { hmac, malformed, parseUnixSeconds, requireFreshTimestamp, requireHeader, requireSignatureMatch, splitOnce } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier } from "@/lib/signatures/types";

const HEADER = "Stripe-Signature";

export const stripe: SignatureVerifier = {
  displayName: "Stripe",
  secretLabel: "Signing secret",
  setupHint: "Dashboard → Developers → Webhooks → Add endpoint with the ingest URL, then paste its signing secret (whsec_…).",
  verify(input) {
    const header = requireHeader(input, HEADER);
    let t: string | null = null;
    const v1: string[] = [];
    for (const item of header.split(",")) {
      const [key, value] = splitOnce(item.trim(), "=");
      if (key === "t" && t === null) t = value;
      else if (key === "v1" && value) v1.push(value.toLowerCase());
    }
    if (t === null) throw malformed(`${HEADER} has no t=<timestamp>`);
    const timestamp = parseUnixSeconds(t, `the t= timestamp in ${HEADER}`);
    if (v1.length === 0) throw malformed(`${HEADER} has no v1=<signature>`);
    requireSignatureMatch(input.secrets, v1, (secret) => hmac("sha256", secret, "hex", `${t}.`, input.body));
    requireFreshTimestamp(timestamp, input);
    const event = readJsonObject(input.body);
    return { externalId: stringField(event, "id"), eventType: stringField(event, "type") };
  },
};
