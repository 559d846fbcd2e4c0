// Mailgun: the signature is inside the body — `signature: {timestamp, token, signature}` in a JSON
// body, or `timestamp`, `token` and `signature` fields of a form (legacy webhooks) — an HMAC-SHA256
// (hex) of `${timestamp}${token}` under the HTTP webhook signing key. Mailgun signs its timestamp and
// a random token, not the body: the signature proves the sender, not that the body is unchanged.
// Dedupe on `event-data.id`, else the token; the type is `event-data.event`.
import { SignatureError } from "@/lib/errors";
import { hmac, parseUnixSeconds, requireFreshTimestamp, requireSignatureMatch } from "@/lib/signatures/hmac";
import { idField, objectField, readJsonObject, stringField, type JsonObject } from "@/lib/signatures/json-body";
import type { SignatureVerifier, VerifyInput } from "@/lib/signatures/types";

/** The signature's three fields, from a JSON body or a form. */
function signatureFields(input: VerifyInput): { fields: JsonObject | null; body: JsonObject | null } {
  const body = readJsonObject(input.body);
  if (body) return { fields: objectField(body, "signature"), body };
  if (!/^application\/x-www-form-urlencoded\b/i.test(input.headers["content-type"] ?? "")) return { fields: null, body: null };
  return { fields: Object.fromEntries(new URLSearchParams(input.body.toString("utf8"))), body: null };
}

export const mailgun: SignatureVerifier = {
  displayName: "Mailgun",
  secretLabel: "HTTP webhook signing key",
  setupHint: "Mailgun → Sending → Webhooks → HTTP webhook signing key (Show). Add each webhook with the ingest URL.",
  verify(input) {
    const { fields, body } = signatureFields(input);
    const timestamp = idField(fields, "timestamp");
    const token = stringField(fields, "token");
    const signature = stringField(fields, "signature");
    if (!timestamp || !token || !signature) {
      throw new SignatureError("missing_signature", "the body has no Mailgun signature (timestamp, token, signature) — the request is unsigned, or this endpoint is set to the wrong provider");
    }
    const seconds = parseUnixSeconds(timestamp, "the signature's timestamp");
    requireSignatureMatch(input.secrets, [signature.toLowerCase()], (secret) => hmac("sha256", secret, "hex", timestamp, token));
    requireFreshTimestamp(seconds, input);
    const event = objectField(body, "event-data");
    return { externalId: stringField(event, "id") ?? token, eventType: stringField(event, "event") };
  },
};
