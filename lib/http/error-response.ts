import { asServiceUnavailable, DomainError, TooManyRequestsError } from "@/lib/errors";
import { describeError, describeErrorBriefly } from "@/lib/logging/describe-error";
import { logger } from "@/lib/logging/logger";

/** Seconds a 503 asks the client to wait: long enough for a restarted database to take connections again. */
const RETRY_AFTER_SECONDS = "5";

/** PostgreSQL's SQLSTATE class 22, data exception (also under drizzle's DrizzleQueryError). */
function isDataException(error: unknown, depth = 0): boolean {
  if (depth > 3 || error === null || typeof error !== "object") return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  return (typeof code === "string" && /^22[0-9A-Z]{3}$/.test(code)) || isDataException(cause, depth + 1);
}

export function jsonError(status: number, code: string, message: string, headers?: HeadersInit): Response {
  return Response.json({ error: { code, message } }, { status, headers });
}

/**
 * The one mapping from errors to HTTP answers. The database being out of reach (down, refusing
 * connections, a statement timeout) is a 503 with Retry-After, not a 500: nothing was changed and a
 * retry can succeed. Unknown errors are logged (safely: never the query's parameters) and answered 500.
 */
export function errorResponse(error: unknown): Response {
  const unavailable = error instanceof DomainError ? null : asServiceUnavailable(error);
  if (unavailable) logger.error(`[api] database unavailable, answered 503: ${describeErrorBriefly(error)}`);
  const known = error instanceof DomainError ? error : unavailable;
  if (known) {
    const headers: Record<string, string> = known.status === 503 ? { "retry-after": RETRY_AFTER_SECONDS } : {};
    if (known instanceof TooManyRequestsError) headers["retry-after"] = String(known.retryAfterSeconds);
    return jsonError(known.status, known.code, known.message, headers);
  }
  if (isDataException(error)) {
    // A value the database could not take (out of range, not valid for its type) that no check caught
    // first: the request's fault, and a check worth adding; logged so it gets one.
    logger.warn(`[api] a value reached the database unchecked, answered 400: ${describeErrorBriefly(error)}`);
    return jsonError(400, "validation_error", "A value in the request is out of range or not valid for its field.");
  }
  logger.error(`[api] unexpected error: ${describeError(error)}`);
  return jsonError(500, "internal_error", "Something went wrong on our side; nothing was changed.");
}
