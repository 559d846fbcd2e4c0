// GitLab: no signature — `X-Gitlab-Token` carries the webhook's secret token itself, compared by
// digest in constant time; it proves the sender knows the token, not that the body is unchanged (HTTPS does).
// Dedupe on `Idempotency-Key` (the same on retries, GitLab 17.4+), else `X-Gitlab-Webhook-UUID` (one
// per webhook request; not `X-Gitlab-Event-UUID`, which hooks fired by one originating event share);
// the type is `X-Gitlab-Event` ("Push Hook").
import { optionalHeader, requireHeader, requireSignatureMatch, tokenDigest } from "@/lib/signatures/hmac";
import type { SignatureVerifier } from "@/lib/signatures/types";

export const gitlab: SignatureVerifier = {
  displayName: "GitLab",
  secretLabel: "Secret token",
  setupHint: "Project or group → Settings → Webhooks → Add new webhook: URL = the ingest URL, Secret token = any string; paste the same here.",
  verify(input) {
    const token = requireHeader(input, "X-Gitlab-Token");
    requireSignatureMatch(input.secrets, [tokenDigest(token)], tokenDigest);
    return {
      externalId: optionalHeader(input, "idempotency-key") ?? optionalHeader(input, "x-gitlab-webhook-uuid"),
      eventType: optionalHeader(input, "x-gitlab-event"),
    };
  },
};
