// HubSpot (v3): `X-HubSpot-Signature-v3: <base64>`, HMAC-SHA256 of method + URI + body + timestamp
// under the app's client secret; `X-HubSpot-Request-Timestamp` is Unix milliseconds. The URI is the
// one HubSpot called (our ingest URL from APP_URL, with its query), with the characters HubSpot
// decodes before signing decoded. v1 and v2 are not accepted (they sign no timestamp). The body is
// a batch of events: one event's `eventId`, or a hash of the batch's ids, is the dedupe key.
import { hmac, parseUnixMilliseconds, requireFreshTimestamp, requireHeader, requireSignatureMatch } from "@/lib/signatures/hmac";
import { batchKey, idField, readJsonArray, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier } from "@/lib/signatures/types";

const TIMESTAMP = "X-HubSpot-Request-Timestamp";
// HubSpot's "Validate the v3 request signature" table of escapes it decodes in the URI.
const DECODED: Record<string, string> = {
  "%3A": ":", "%2F": "/", "%3F": "?", "%40": "@", "%21": "!", "%24": "$", "%27": "'", "%28": "(", "%29": ")", "%2A": "*", "%2C": ",", "%3B": ";",
};

export const hubspot: SignatureVerifier = {
  displayName: "HubSpot",
  secretLabel: "Client secret",
  setupHint: "Your app → Auth → Client secret. Under Webhooks, Target URL = the ingest URL.",
  verify(input) {
    const received = requireHeader(input, "X-HubSpot-Signature-v3");
    const t = requireHeader(input, TIMESTAMP);
    const timestamp = parseUnixMilliseconds(t, TIMESTAMP);
    const uri = input.url.replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (escape) => DECODED[escape.toUpperCase()]!);
    requireSignatureMatch(input.secrets, [received], (secret) => hmac("sha256", secret, "base64", input.method, uri, input.body, t));
    requireFreshTimestamp(timestamp, input);
    const events = readJsonArray(input.body) ?? [];
    return { externalId: batchKey(events.map((event) => idField(event, "eventId")), input.body), eventType: stringField(events[0] ?? null, "subscriptionType") };
  },
};
