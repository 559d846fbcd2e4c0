// Paddle Billing: `Paddle-Signature: ts=<unix seconds>;h1=<hex>[;h1=<hex>…]`, HMAC-SHA256 of
// `${ts}:${body}` under the notification destination's secret key (pdl_ntfset_…). Paddle sends one
// h1 per active secret while a secret is being rotated; any one matching is enough. Dedupe on the
// body's `event_id`; the type is `event_type`.
import { hmac, malformed, parseUnixSeconds, requireFreshTimestamp, requireHeader, requireSignatureMatch, splitOnce } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier } from "@/lib/signatures/types";

const HEADER = "Paddle-Signature";

export const paddle: SignatureVerifier = {
  displayName: "Paddle",
  secretLabel: "Secret key",
  setupHint: "Paddle → Developer Tools → Notifications → New destination with the ingest URL; paste its secret key (pdl_ntfset_…).",
  verify(input) {
    const header = requireHeader(input, HEADER);
    let ts: string | null = null;
    const h1: string[] = [];
    for (const part of header.split(";")) {
      const [key, value] = splitOnce(part.trim(), "=");
      if (key === "ts" && ts === null) ts = value;
      else if (key === "h1" && value) h1.push(value.toLowerCase());
    }
    if (ts === null) throw malformed(`${HEADER} has no ts=<timestamp>`);
    const timestamp = parseUnixSeconds(ts, `the ts= timestamp in ${HEADER}`);
    if (h1.length === 0) throw malformed(`${HEADER} has no h1=<signature>`);
    requireSignatureMatch(input.secrets, h1, (secret) => hmac("sha256", secret, "hex", `${ts}:`, input.body));
    requireFreshTimestamp(timestamp, input);
    const event = readJsonObject(input.body);
    return { externalId: stringField(event, "event_id"), eventType: stringField(event, "event_type") };
  },
};
