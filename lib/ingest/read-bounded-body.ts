import { PayloadTooLargeError } from "@/lib/errors";

/**
 * Reads the raw body, refusing (413) as soon as it passes `limit` bytes: a declared Content-Length
 * over the limit is refused before reading anything, and a stream that grows past it is cancelled.
 */
export async function readBoundedBody(request: Request, limit: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > limit) {
    await request.body?.cancel().catch(() => {});
    throw new PayloadTooLargeError(limit);
  }
  if (!request.body) return Buffer.alloc(0);
  // HTTP framing holds a body to its declared length, so a declared one within the limit is read whole:
  // the one native read costs less than pulling chunks through a stream reader.
  if (Number.isInteger(declared)) return Buffer.from(await request.arrayBuffer());
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new PayloadTooLargeError(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}
