// GitHub: `X-Hub-Signature-256: sha256=<hex>`, HMAC-SHA256 of the body. GitHub signs no timestamp,
// so there is no window to check; the delivery id (`X-GitHub-Delivery`) is the dedupe key and stays
// the same when a delivery is redelivered. The legacy SHA-1 `X-Hub-Signature` is not accepted.
import { hmac, malformed, optionalHeader, requireHeader, requireSignatureMatch } from "@/lib/signatures/hmac";
import type { IdentifyInput, RequestIdentity, SignatureVerifier } from "@/lib/signatures/types";

const HEADER = "X-Hub-Signature-256";
const PREFIX = "sha256=";

/** The delivery id and the event's name, in their headers. */
function identify(input: IdentifyInput): RequestIdentity {
  return { externalId: optionalHeader(input, "x-github-delivery"), eventType: optionalHeader(input, "x-github-event") };
}

export const github: SignatureVerifier = {
  displayName: "GitHub",
  secretLabel: "Webhook secret",
  setupHint: "Repository or organization Settings → Webhooks → Add webhook: Payload URL = the ingest URL, content type application/json, and the same secret there and here.",
  verify(input) {
    const header = requireHeader(input, HEADER);
    if (!header.startsWith(PREFIX)) throw malformed(`${HEADER} is not of the form ${PREFIX}<hex>`);
    const received = header.slice(PREFIX.length).toLowerCase();
    requireSignatureMatch(input.secrets, [received], (secret) => hmac("sha256", secret, "hex", input.body));
    return identify(input);
  },
  identify,
};
