// Linear: `Linear-Signature: <hex>`, HMAC-SHA256 of the body under the webhook's signing secret. The
// timestamp is `webhookTimestamp` (Unix milliseconds) inside the signed body; the `Linear-Timestamp`
// header is not signed and not read (as @linear/sdk's LinearWebhookClient.verify). Dedupe on
// `Linear-Delivery` (one id per payload, the same on retries); the type is the body's `type` and
// `action` ("Issue.create").
import { hmac, malformed, requireFreshTimestamp, requireHeader, requireSignatureMatch, optionalHeader } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier } from "@/lib/signatures/types";

export const linear: SignatureVerifier = {
  displayName: "Linear",
  secretLabel: "Signing secret",
  setupHint: "Settings → API → Webhooks → New webhook with the ingest URL; paste the signing secret shown on the webhook's page.",
  verify(input) {
    const received = requireHeader(input, "Linear-Signature").toLowerCase();
    requireSignatureMatch(input.secrets, [received], (secret) => hmac("sha256", secret, "hex", input.body));
    const body = readJsonObject(input.body);
    const milliseconds = body?.webhookTimestamp;
    if (typeof milliseconds !== "number" || !Number.isFinite(milliseconds)) throw malformed("the body has no webhookTimestamp in Unix milliseconds");
    requireFreshTimestamp(Math.floor(milliseconds / 1000), input);
    const type = stringField(body, "type");
    const action = stringField(body, "action");
    return { externalId: optionalHeader(input, "linear-delivery"), eventType: type && action ? `${type}.${action}` : type };
  },
};
