// Sentry (integration platform): `Sentry-Hook-Signature: <hex>`, HMAC-SHA256 of the body under the
// integration's client secret. `Sentry-Hook-Timestamp` is not signed, so checking it would prove
// nothing; it is not read. Dedupe on `Request-ID`; the type is `Sentry-Hook-Resource` + the body's
// `action` (e.g. "issue.created").
import { bodyHmacVerifier } from "@/lib/signatures/body-hmac";
import { optionalHeader } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";

export const sentry = bodyHmacVerifier(
  {
    displayName: "Sentry",
    secretLabel: "Client secret",
    setupHint: "Settings → Developer Settings → your integration: Webhook URL = the ingest URL; paste its Client Secret here.",
  },
  {
    header: "Sentry-Hook-Signature",
    algorithm: "sha256",
    encoding: "hex",
    describe(input) {
      const resource = optionalHeader(input, "sentry-hook-resource");
      const action = stringField(readJsonObject(input.body), "action");
      return { externalId: optionalHeader(input, "request-id"), eventType: resource && action ? `${resource}.${action}` : resource };
    },
  },
);
