// Intercom: `X-Hub-Signature: sha1=<hex>`, HMAC-SHA1 of the body under the app's client secret
// (Developer Hub → your app → Basic information). No timestamp is signed. Dedupe on the
// notification's `id` (notif_…); the type is its `topic`.
import { bodyHmacVerifier } from "@/lib/signatures/body-hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";

export const intercom = bodyHmacVerifier(
  {
    displayName: "Intercom",
    secretLabel: "Client secret",
    setupHint: "Developer Hub → your app → Basic information → Client secret. Put the ingest URL under Webhooks → Endpoint URL.",
  },
  {
    header: "X-Hub-Signature",
    prefix: "sha1=",
    algorithm: "sha1",
    encoding: "hex",
    describe(input) {
      const body = readJsonObject(input.body);
      return { externalId: stringField(body, "id"), eventType: stringField(body, "topic") };
    },
  },
);
