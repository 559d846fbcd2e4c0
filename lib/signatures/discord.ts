// Discord: `X-Signature-Ed25519: <hex>`, an Ed25519 signature of `${X-Signature-Timestamp}${body}`
// by the application's key; the endpoint stores its public key (hex, as the Developer Portal shows
// it). The timestamp is Unix seconds. Interactions answer a PING (type 1) with {type: 1}; webhook
// events (they carry `event`) answer theirs (type 0) with 204 — both handshakes, never stored.
// Dedupe on the interaction's `id`; webhook events carry no id, so a hash of the body stands in.
import { verify as verifySignature } from "node:crypto";
import { malformed, parseUnixSeconds, requireFreshTimestamp, requireHeader, sha256Hex } from "@/lib/signatures/hmac";
import { objectField, readJsonObject, stringField } from "@/lib/signatures/json-body";
import { ed25519PublicKey, requireKeySignature } from "@/lib/signatures/public-keys";
import type { SignatureVerifier, VerifiedRequest } from "@/lib/signatures/types";

const SIGNATURE = "X-Signature-Ed25519";
const TIMESTAMP = "X-Signature-Timestamp";

export const discord: SignatureVerifier = {
  displayName: "Discord",
  secretLabel: "Public key",
  setupHint: "Developer Portal → your application → General Information → Public Key (64 hex characters). Use the ingest URL as the Interactions Endpoint URL or the Webhook Events URL.",
  secretProblem: (secret) => (ed25519PublicKey(secret) ? null : "a Discord public key is the 64 hex characters shown under General Information → Public Key"),
  verify(input) {
    const signature = requireHeader(input, SIGNATURE);
    const t = requireHeader(input, TIMESTAMP);
    const timestamp = parseUnixSeconds(t, TIMESTAMP);
    if (!/^[0-9a-f]{128}$/i.test(signature)) throw malformed(`${SIGNATURE} is not 128 hex characters`);
    const signed = Buffer.concat([Buffer.from(t), input.body]);
    requireKeySignature(input.secrets, ed25519PublicKey, (key) => verifySignature(null, signed, key, Buffer.from(signature, "hex")));
    requireFreshTimestamp(timestamp, input);

    const body = readJsonObject(input.body);
    const event = objectField(body, "event");
    const webhookEvent = event !== null || body?.type === 0;
    const verified: VerifiedRequest = {
      externalId: stringField(body, "id") ?? sha256Hex(input.body),
      eventType: webhookEvent ? stringField(event, "type") : typeof body?.type === "number" ? `interaction.${body.type}` : null,
    };
    if (webhookEvent && body?.type === 0) verified.handshake = { kind: "no-content" };
    else if (!webhookEvent && body?.type === 1) verified.handshake = { kind: "json", body: { type: 1 } };
    return verified;
  },
};
