// SendGrid (Twilio SendGrid Event Webhook): `X-Twilio-Email-Event-Webhook-Signature: <base64 DER>`,
// an ECDSA P-256 / SHA-256 signature of `${X-Twilio-Email-Event-Webhook-Timestamp}${body}`; the
// endpoint stores the verification key SendGrid shows (base64 DER SPKI). The timestamp is Unix
// seconds. The body is a batch of events: one event's `sg_event_id`, or a hash of the batch's ids,
// is the dedupe key; the type is the first event's `event`.
import { verify as verifySignature } from "node:crypto";
import { malformed, parseUnixSeconds, requireFreshTimestamp, requireHeader } from "@/lib/signatures/hmac";
import { batchKey, readJsonArray, stringField } from "@/lib/signatures/json-body";
import { p256PublicKey, requireKeySignature } from "@/lib/signatures/public-keys";
import type { SignatureVerifier } from "@/lib/signatures/types";

const SIGNATURE = "X-Twilio-Email-Event-Webhook-Signature";
const TIMESTAMP = "X-Twilio-Email-Event-Webhook-Timestamp";

export const sendgrid: SignatureVerifier = {
  displayName: "SendGrid",
  secretLabel: "Verification key",
  setupHint: "Settings → Mail Settings → Event Webhooks: Post URL = the ingest URL, Signature Verification on; paste the Verification Key shown (base64).",
  secretProblem: (secret) => (p256PublicKey(secret) ? null : "a SendGrid verification key is the base64 public key (MFkwEwYHKoZIzj0…) shown under Signature Verification"),
  verify(input) {
    const signature = requireHeader(input, SIGNATURE);
    const t = requireHeader(input, TIMESTAMP);
    const timestamp = parseUnixSeconds(t, TIMESTAMP);
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(signature)) throw malformed(`${SIGNATURE} is not base64`);
    const signed = Buffer.concat([Buffer.from(t), input.body]);
    requireKeySignature(input.secrets, p256PublicKey, (key) => verifySignature("sha256", signed, key, Buffer.from(signature, "base64")));
    requireFreshTimestamp(timestamp, input);
    const events = readJsonArray(input.body) ?? [];
    return { externalId: batchKey(events.map((event) => stringField(event, "sg_event_id")), input.body), eventType: stringField(events[0] ?? null, "event") };
  },
};
