// REST request bodies are bounded (API.md "Tenancy"): over 1 MiB is refused with 413 without reading
// the rest, so one caller's huge or endless upload costs the web process at most 1 MiB.
import { DomainError, PayloadTooLargeError, ValidationError } from "@/lib/errors";
import { readBoundedBody } from "./read-bounded-body";

export const REST_MAX_BODY_BYTES = 1_048_576;

const tooLarge = () =>
  new DomainError("payload_too_large", 413, `The request body is larger than the REST API's limit of ${REST_MAX_BODY_BYTES} bytes (1 MiB).`);

/** 413 for a declared Content-Length over the limit, before a byte of the body is read. */
export async function refuseDeclaredOversize(request: Request): Promise<void> {
  if (Number(request.headers.get("content-length") ?? 0) <= REST_MAX_BODY_BYTES) return;
  await request.body?.cancel().catch(() => {});
  throw tooLarge();
}

/** The body as UTF-8 text, counting bytes as they arrive (chunked or not) and stopping at the limit. */
export async function readBoundedText(request: Request): Promise<string> {
  try {
    return (await readBoundedBody(request, REST_MAX_BODY_BYTES)).toString("utf8");
  } catch (error) {
    throw error instanceof PayloadTooLargeError ? tooLarge() : error;
  }
}

/** The parsed JSON body; an empty body reads as {}. 400 when it is not JSON. */
export function parseRestJson(text: string): unknown {
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError("The request body is not valid JSON.");
  }
}
