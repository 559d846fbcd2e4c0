// Typeform: `Typeform-Signature: sha256=<base64>`, HMAC-SHA256 of the body under the secret set on
// the form's webhook. No timestamp is signed. Dedupe on the body's `event_id`; the type is `event_type`.
import { bodyHmacVerifier } from "@/lib/signatures/body-hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";

export const typeform = bodyHmacVerifier(
  {
    displayName: "Typeform",
    secretLabel: "Webhook secret",
    setupHint: "Your form → Connect → Webhooks → Add a webhook with the ingest URL → Edit → Secret: set one there and paste the same here.",
  },
  {
    header: "Typeform-Signature",
    prefix: "sha256=",
    algorithm: "sha256",
    encoding: "base64",
    describe(input) {
      const body = readJsonObject(input.body);
      return { externalId: stringField(body, "event_id"), eventType: stringField(body, "event_type") };
    },
  },
);
