// Lemon Squeezy: `X-Signature: <hex>`, HMAC-SHA256 of the body under the webhook's signing secret.
// No timestamp is signed. Its events carry no id of their own (`data.id` names the object, shared by
// its events), so a hash of the body stands in: a retry resends the same body. The type is
// `X-Event-Name`, else the body's `meta.event_name`.
import { bodyHmacVerifier } from "@/lib/signatures/body-hmac";
import { optionalHeader, sha256Hex } from "@/lib/signatures/hmac";
import { objectField, readJsonObject, stringField } from "@/lib/signatures/json-body";

export const lemonsqueezy = bodyHmacVerifier(
  {
    displayName: "Lemon Squeezy",
    secretLabel: "Signing secret",
    setupHint: "Settings → Webhooks → add one with the ingest URL as Callback URL and a signing secret (6–40 characters); paste the same here.",
  },
  {
    header: "X-Signature",
    algorithm: "sha256",
    encoding: "hex",
    describe(input) {
      const meta = objectField(readJsonObject(input.body), "meta");
      return { externalId: sha256Hex(input.body), eventType: optionalHeader(input, "x-event-name") ?? stringField(meta, "event_name") };
    },
  },
);
