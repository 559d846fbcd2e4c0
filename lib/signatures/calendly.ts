// Calendly: `Calendly-Webhook-Signature: t=<unix seconds>,v1=<hex>`, HMAC-SHA256 of `${t}.${body}`
// under the webhook subscription's signing key. Calendly's events carry no id of their own, so a
// hash of the body stands in (a retry resends the same body); the type is the body's `event`.
import { hmac, malformed, parseUnixSeconds, requireFreshTimestamp, requireHeader, requireSignatureMatch, sha256Hex, splitOnce } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier } from "@/lib/signatures/types";

const HEADER = "Calendly-Webhook-Signature";

export const calendly: SignatureVerifier = {
  displayName: "Calendly",
  secretLabel: "Signing key",
  setupHint: "The signing_key you send when creating the webhook subscription (POST /webhook_subscriptions with url = the ingest URL); paste the same here.",
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
    return { externalId: sha256Hex(input.body), eventType: stringField(readJsonObject(input.body), "event") };
  },
};
