// A refused request as the quarantine keeps it: method, the URL the provider sent to, headers and the
// exact body, sealed together (lib/crypto/secret-box.ts), so nothing of it is readable at rest.
// Layout before sealing: 4-byte length of the JSON part, the JSON {method, url, headers}, the body.
import { openBytes, sealBytes } from "@/lib/crypto/secret-box";

export interface QuarantinedRequestContent {
  method: string;
  /** The URL as the provider saw it (APP_URL + path + query), which some schemes sign. */
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

export function sealRequest(request: QuarantinedRequestContent): Buffer {
  const meta = Buffer.from(JSON.stringify({ method: request.method, url: request.url, headers: request.headers }));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(meta.length);
  return sealBytes(Buffer.concat([length, meta, request.body]));
}

export function openRequest(sealed: Buffer): QuarantinedRequestContent {
  const plain = openBytes(sealed);
  const metaLength = plain.readUInt32BE(0);
  const meta = JSON.parse(plain.subarray(4, 4 + metaLength).toString("utf8")) as Omit<QuarantinedRequestContent, "body">;
  return { method: meta.method, url: meta.url, headers: meta.headers, body: plain.subarray(4 + metaLength) };
}
