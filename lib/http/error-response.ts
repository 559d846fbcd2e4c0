import { DomainError, TooManyRequestsError } from "@/lib/errors";

export function jsonError(status: number, code: string, message: string, headers?: HeadersInit): Response {
  return Response.json({ error: { code, message } }, { status, headers });
}

/** The one mapping from errors to HTTP answers. Unknown errors are logged and answered 500 without detail. */
export function errorResponse(error: unknown): Response {
  if (error instanceof DomainError) {
    const headers: Record<string, string> = error.status === 503 ? { "retry-after": "5" } : {};
    if (error instanceof TooManyRequestsError) headers["retry-after"] = String(error.retryAfterSeconds);
    return jsonError(error.status, error.code, error.message, headers);
  }
  console.error("[api] unexpected error", error);
  return jsonError(500, "internal_error", "Something went wrong on our side; nothing was changed.");
}
