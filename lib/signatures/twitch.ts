// Twitch EventSub: `Twitch-Eventsub-Message-Signature: sha256=<hex>`, HMAC-SHA256 of message id +
// timestamp + body under the subscription's secret; the timestamp is RFC 3339 with up to nanoseconds
// (`Twitch-Eventsub-Message-Timestamp`). A verified `webhook_callback_verification` is answered with
// the body's challenge as plain text, never stored. Dedupe on `Twitch-Eventsub-Message-Id` (the same
// on a resend); the type is `Twitch-Eventsub-Subscription-Type`.
import { hmac, malformed, optionalHeader, requireFreshTimestamp, requireHeader, requireSignatureMatch } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier, VerifiedRequest } from "@/lib/signatures/types";

const SIGNATURE = "Twitch-Eventsub-Message-Signature";
const ID = "Twitch-Eventsub-Message-Id";
const TIMESTAMP = "Twitch-Eventsub-Message-Timestamp";
const PREFIX = "sha256=";
const RFC_3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$/i;

export const twitch: SignatureVerifier = {
  displayName: "Twitch EventSub",
  secretLabel: "Subscription secret",
  setupHint: "The secret you pass (10–100 characters) when creating the EventSub subscription with transport.callback = the ingest URL; paste the same here.",
  verify(input) {
    const header = requireHeader(input, SIGNATURE);
    const id = requireHeader(input, ID);
    const t = requireHeader(input, TIMESTAMP);
    const milliseconds = RFC_3339.test(t) ? Date.parse(t) : NaN;
    if (!Number.isFinite(milliseconds)) throw malformed(`${TIMESTAMP} is not an RFC 3339 time`);
    if (!header.startsWith(PREFIX)) throw malformed(`${SIGNATURE} is not of the form ${PREFIX}<hex>`);
    const received = header.slice(PREFIX.length).toLowerCase();
    requireSignatureMatch(input.secrets, [received], (secret) => hmac("sha256", secret, "hex", id, t, input.body));
    requireFreshTimestamp(Math.floor(milliseconds / 1000), input);

    const verified: VerifiedRequest = { externalId: id, eventType: optionalHeader(input, "twitch-eventsub-subscription-type") };
    const challenge = stringField(readJsonObject(input.body), "challenge");
    if (optionalHeader(input, "twitch-eventsub-message-type") === "webhook_callback_verification" && challenge) {
      verified.handshake = { kind: "text", body: challenge };
    }
    return verified;
  },
};
