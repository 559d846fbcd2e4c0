import { DomainError, PayloadTooLargeError, ValidationError } from "@/lib/errors";

/**
 * Reads the raw body, refusing (413) as soon as it passes `limit` bytes: a declared Content-Length
 * over the limit is refused before reading anything, and a stream that grows past it is cancelled.
 * `reserve(bytes)` is told of every byte before it is kept — a declared length up front, a stream
 * chunk by chunk — and may throw to refuse the body; the rest of it is then not read.
 */
export async function readBoundedBody(request: Request, limit: number, reserve: (bytes: number) => void = () => {}): Promise<Buffer> {
  try {
    return await read(request, limit, reserve);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    // The sender went away mid-body (or sent a broken one): nobody may be listening, but it is no error of ours.
    throw new ValidationError("The body could not be read to its end; nothing was kept.");
  }
}

async function read(request: Request, limit: number, reserve: (bytes: number) => void): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? NaN);
  if (declared > limit) {
    await request.body?.cancel().catch(() => {});
    throw new PayloadTooLargeError(limit);
  }
  if (!request.body) return Buffer.alloc(0);
  // HTTP framing holds a body to its declared length, so a declared one within the limit is read whole:
  // the one native read costs less than pulling chunks through a stream reader.
  if (Number.isInteger(declared)) {
    try {
      reserve(declared);
    } catch (error) {
      await request.body.cancel().catch(() => {});
      throw error;
    }
    return Buffer.from(await request.arrayBuffer());
  }
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    try {
      if (total > limit) throw new PayloadTooLargeError(limit);
      reserve(value.byteLength);
    } catch (error) {
      await reader.cancel().catch(() => {});
      throw error;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}
