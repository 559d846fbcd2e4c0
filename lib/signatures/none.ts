// No verification: anyone who knows the endpoint URL can post to it (the dashboard marks such
// endpoints unsafe). A sender's own id header, when it sends one, still deduplicates retries.
import { optionalHeader } from "@/lib/signatures/hmac";
import { readJsonObject, stringField } from "@/lib/signatures/json-body";
import type { SignatureVerifier } from "@/lib/signatures/types";

export const none: SignatureVerifier = {
  displayName: "None (unsafe)",
  secretLabel: "No secret",
  setupHint: "Nothing is verified: anyone who knows the ingest URL can send to it.",
  verify(input) {
    return {
      externalId: optionalHeader(input, "webhook-id") ?? optionalHeader(input, "idempotency-key"),
      eventType: stringField(readJsonObject(input.body), "type"),
    };
  },
};
