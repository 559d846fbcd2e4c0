// The headers a destination receives (API.md "What a destination receives"): the original ones,
// less hop-by-hop headers, host and content-length, plus ours; optionally Standard Webhooks
// signatures over the exact stored bytes. Pure.
import { createHmac } from "node:crypto";

/** RFC 9110 §7.6.1 connection-specific headers, and what a new request must set for itself. */
const DROPPED = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "trailers",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
  "expect",
  "http2-settings",
]);

const STANDARD_WEBHOOKS_HEADERS = ["webhook-id", "webhook-timestamp", "webhook-signature"];

/** The HMAC key of a Standard Webhooks secret (`whsec_<base64>` or bare base64). */
export function standardWebhooksKey(secret: string): Buffer {
  const key = Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
  if (key.length === 0) throw new Error("The outbound secret is not a base64 Standard Webhooks secret (whsec_…).");
  return key;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, over the body's bytes as stored. */
export function standardWebhooksSignature(key: Buffer, id: string, timestampSeconds: number, body: Buffer): string {
  const hmac = createHmac("sha256", key);
  hmac.update(`${id}.${timestampSeconds}.`);
  hmac.update(body);
  return `v1,${hmac.digest("base64")}`;
}

export function buildOutboundHeaders(input: {
  stored: Record<string, string>;
  deliveryId: string;
  /** The destination it goes to (x-inbox-destination-id). */
  destinationId: string;
  attemptNumber: number;
  body: Buffer;
  /** Decrypted outbound secret; when set, the request is re-signed with Standard Webhooks. */
  outboundSecret?: string | null;
  now?: Date;
}): Record<string, string> {
  const { stored, deliveryId, destinationId, attemptNumber, body, outboundSecret } = input;
  // Headers named in Connection are hop-by-hop too.
  const named = new Set(
    Object.entries(stored)
      .filter(([name]) => name.toLowerCase() === "connection")
      .flatMap(([, value]) => value.split(",").map((token) => token.trim().toLowerCase())),
  );
  const headers: Record<string, string> = {};
  for (const [rawName, value] of Object.entries(stored)) {
    const name = rawName.toLowerCase();
    if (DROPPED.has(name) || named.has(name) || name.startsWith("x-inbox-") || typeof value !== "string") continue;
    if (outboundSecret && STANDARD_WEBHOOKS_HEADERS.includes(name)) continue;
    headers[name] = value;
  }
  headers["x-inbox-delivery-id"] = deliveryId;
  headers["x-inbox-destination-id"] = destinationId;
  headers["x-inbox-attempt"] = String(attemptNumber);
  if (outboundSecret) {
    const timestamp = Math.floor((input.now ?? new Date()).getTime() / 1000);
    headers["webhook-id"] = deliveryId;
    headers["webhook-timestamp"] = String(timestamp);
    headers["webhook-signature"] = standardWebhooksSignature(standardWebhooksKey(outboundSecret), deliveryId, timestamp, body);
  }
  return headers;
}
