// Vercel: `x-vercel-signature: <hex>`, HMAC-SHA1 of the body under the webhook's secret (or the
// integration's client secret). No timestamp is signed. Dedupe on the event's `id`; the type is `type`.
import { bodyHmacVerifier } from "@/lib/signatures/body-hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";

export const vercel = bodyHmacVerifier(
  {
    displayName: "Vercel",
    secretLabel: "Webhook secret",
    setupHint: "Team Settings → Webhooks → Create with the ingest URL; paste the secret Vercel shows once (an integration's Client Secret for integration webhooks).",
  },
  {
    header: "x-vercel-signature",
    algorithm: "sha1",
    encoding: "hex",
    describe(input) {
      const body = readJsonObject(input.body);
      return { externalId: stringField(body, "id"), eventType: stringField(body, "type") };
    },
  },
);
