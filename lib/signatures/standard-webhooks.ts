// Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` and
// `webhook-signature: v1,<base64> [v1,<base64> …]`, HMAC-SHA256 of `${id}.${timestamp}.${body}`
// under the base64 key of a `whsec_…` secret. Svix sends the same scheme under `svix-*` headers.
//
// The cryptography is the `standardwebhooks` package's (Webhook: key decoding, then `sign`). Its
// `verify` is not used: it checks the timestamp against Date.now() with a fixed 5 minutes
// (verifyTimestamp in node_modules/standardwebhooks/dist/index.js), ignoring our `now` and
// `toleranceSeconds`, and its error messages do not tell missing from stale from wrong. So the
// headers, the comparison and the window are done here, each failure with our own code.
import { isUtf8 } from "node:buffer";
import { Webhook } from "standardwebhooks";
import { malformed, parseUnixSeconds, requireFreshTimestamp, requireHeader, requireSignatureMatch, splitOnce } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier } from "@/lib/signatures/types";

type Guide = Pick<SignatureVerifier, "displayName" | "secretLabel" | "setupHint">;

/** The package's key for a secret (`whsec_…` or the bare base64), or null when it does not decode. */
function webhookFor(secret: string): Webhook | null {
  try {
    return new Webhook(secret);
  } catch {
    return null;
  }
}

export function standardWebhooksVerifier(headerPrefix: "webhook" | "svix", guide: Guide): SignatureVerifier {
  const [idHeader, timestampHeader, signatureHeader] = ["id", "timestamp", "signature"].map((part) => `${headerPrefix}-${part}`);
  return {
    ...guide,
    verify(input) {
      const signatures = requireHeader(input, signatureHeader);
      const id = requireHeader(input, idHeader);
      const timestamp = parseUnixSeconds(requireHeader(input, timestampHeader), timestampHeader);
      const received = signatures
        .split(" ")
        .map((entry) => splitOnce(entry, ","))
        .flatMap(([version, signature]) => (version === "v1" && signature ? [signature] : []));
      if (received.length === 0) throw malformed(`${signatureHeader} has no v1,<base64> signature (asymmetric v1a is not supported)`);
      // The package signs text: bytes that are not UTF-8 would be signed as U+FFFD, so a signature
      // would not cover the exact bytes we store. No sender that signs text can produce them.
      if (!isUtf8(input.body)) throw malformed("the body is not valid UTF-8, which this scheme signs");
      const body = input.body.toString("utf8");
      const signedAt = new Date(timestamp * 1000);
      requireSignatureMatch(input.secrets, received, (secret) => {
        const signed = webhookFor(secret)?.sign(id, signedAt, body);
        return signed ? splitOnce(signed, ",")[1] : null;
      });
      requireFreshTimestamp(timestamp, input);
      return { externalId: id, eventType: stringField(readJsonObject(input.body), "type") };
    },
    identify(input) {
      return { externalId: input.headers[idHeader!]?.trim() || null, eventType: stringField(readJsonObject(input.body), "type") };
    },
  };
}

export const standardWebhooks = standardWebhooksVerifier("webhook", {
  displayName: "Standard Webhooks",
  secretLabel: "Signing secret",
  setupHint: "Leave empty to generate a whsec_… secret to give the sender, or paste the whsec_… secret the sender shows.",
});
