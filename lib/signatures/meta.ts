// Meta (Facebook, Instagram, WhatsApp, Messenger): `X-Hub-Signature-256: sha256=<hex>`, HMAC-SHA256
// of the body under the app secret. No timestamp is signed, and the events carry no id of their own
// (`entry[].id` names the page or account), so a hash of the body stands in; the type is `object`.
// Subscribing, Meta first sends `GET ?hub.mode=subscribe&hub.verify_token=…&hub.challenge=…`: when the
// token is the endpoint's verify token, the challenge is echoed as text; nothing is stored.
import { SignatureError } from "@/lib/errors";
import { bodyHmacVerifier } from "@/lib/signatures/body-hmac";
import { safeEqual, sha256Hex, tokenDigest } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier } from "@/lib/signatures/types";

export const meta: SignatureVerifier = {
  ...bodyHmacVerifier(
    {
      displayName: "Meta (Facebook, Instagram, WhatsApp)",
      secretLabel: "App secret",
      setupHint: "App Dashboard → App settings → Basic → App secret. Under Webhooks (or WhatsApp → Configuration), Callback URL = the ingest URL.",
    },
    {
      header: "X-Hub-Signature-256",
      prefix: "sha256=",
      algorithm: "sha256",
      encoding: "hex",
      describe(input) {
        return { externalId: sha256Hex(input.body), eventType: stringField(readJsonObject(input.body), "object") };
      },
    },
  ),
  verifyTokenHint: "Any string you choose; type the same into Meta's Verify token field. Meta's subscription check (GET) is answered only when it matches.",
  answerGet({ query, verifyToken }) {
    const challenge = query.get("hub.challenge");
    if (query.get("hub.mode") !== "subscribe" || !challenge) return null;
    const given = query.get("hub.verify_token");
    if (!given) throw new SignatureError("missing_signature", "hub.verify_token is missing — this is not Meta's subscription check");
    if (!verifyToken) throw new SignatureError("invalid_signature", "this endpoint has no verify token — set one in the endpoint's settings, and the same at Meta");
    if (!safeEqual(tokenDigest(given), tokenDigest(verifyToken))) throw new SignatureError("invalid_signature", "hub.verify_token does not match this endpoint's verify token");
    return { kind: "text", body: challenge };
  },
};
