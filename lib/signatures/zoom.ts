// Zoom: `x-zm-signature: v0=<hex>`, HMAC-SHA256 of `v0:${x-zm-request-timestamp}:${body}` under the
// app's Secret Token; the timestamp is Unix seconds. A verified `endpoint.url_validation` is Zoom's
// handshake: answered with its plainToken and that token's HMAC-SHA256 (hex) under the same secret,
// never stored. Zoom's events carry no id, so a hash of the body stands in (a retry resends the
// same body); the type is `event`.
import { hmac, sha256Hex } from "@/lib/signatures/hmac";
import { objectField, readJsonObject, stringField } from "@/lib/signatures/json-body";
import { verifySlackScheme } from "@/lib/signatures/timestamped-hmac";
import type { SignatureVerifier, VerifiedRequest } from "@/lib/signatures/types";

const SIGNATURE = "x-zm-signature";
const TIMESTAMP = "x-zm-request-timestamp";

export const zoom: SignatureVerifier = {
  displayName: "Zoom",
  secretLabel: "Secret Token",
  setupHint: "Zoom App Marketplace → your app → Features → Access → Secret Token. Event Subscriptions → Event notification endpoint URL = the ingest URL, then Validate.",
  verify(input) {
    const secret = verifySlackScheme(input, SIGNATURE, TIMESTAMP);
    const body = readJsonObject(input.body);
    const verified: VerifiedRequest = { externalId: sha256Hex(input.body), eventType: stringField(body, "event") };
    const plainToken = stringField(objectField(body, "payload"), "plainToken");
    if (verified.eventType === "endpoint.url_validation" && plainToken) {
      verified.handshake = { kind: "json", body: { plainToken, encryptedToken: hmac("sha256", secret, "hex", plainToken) } };
    }
    return verified;
  },
};
