// Slack: `X-Slack-Signature: v0=<hex>`, HMAC-SHA256 of `v0:${X-Slack-Request-Timestamp}:${body}`
// under the app's signing secret; Slack asks receivers to refuse timestamps older than 5 minutes
// (the endpoint's toleranceSeconds, 300 by default). Bodies are JSON (Events API) or form-encoded
// (slash commands, interactivity); a form body has no event id, so a hash of the body stands in.
// A verified `url_verification` body is Slack's handshake: answered with its challenge, never stored.
import { sha256Hex } from "@/lib/signatures/hmac";
import { objectField, readJsonObject, stringField } from "@/lib/signatures/json-body";
import { verifySlackScheme } from "@/lib/signatures/timestamped-hmac";
import type { SignatureVerifier, VerifiedRequest } from "@/lib/signatures/types";

const SIGNATURE = "X-Slack-Signature";
const TIMESTAMP = "X-Slack-Request-Timestamp";

export const slack: SignatureVerifier = {
  displayName: "Slack",
  secretLabel: "Signing secret",
  setupHint: "api.slack.com/apps → your app → Basic Information → Signing Secret. Use the ingest URL as the Request URL (Event Subscriptions, Interactivity, Slash Commands).",
  verify(input) {
    verifySlackScheme(input, SIGNATURE, TIMESTAMP);
    const body = readJsonObject(input.body);
    const verified: VerifiedRequest = {
      externalId: stringField(body, "event_id") ?? sha256Hex(input.body),
      eventType: stringField(objectField(body, "event"), "type") ?? stringField(body, "type"),
    };
    if (body?.type === "url_verification") verified.handshake = { kind: "json", body: { challenge: body.challenge } };
    return verified;
  },
};
