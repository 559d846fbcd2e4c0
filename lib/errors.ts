// Domain errors. Route handlers map them to HTTP through one function (lib/http/error-response.ts),
// so every status code and error body is decided in one place.

export type ErrorCode =
  | "validation_error"
  | "unauthorized"
  | "forbidden"
  | "not_found"
  | "conflict"
  | "attempt_in_flight"
  | "limit_reached"
  | "invalid_filter"
  | "default_destination"
  | "method_not_allowed"
  | "payload_too_large"
  | "invalid_signature"
  | "missing_signature"
  | "timestamp_out_of_tolerance"
  | "store_unavailable"
  | "service_unavailable"
  | "invalid_event_id"
  | "unstorable_delivery"
  | "rate_limited"
  | "too_many_bytes_in_flight"
  | "too_many_searches";

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly status: number,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends DomainError {
  constructor(message: string, details?: unknown) {
    super("validation_error", 400, message, details);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = "A valid API key is required (Authorization: Bearer <key>).") {
    super("unauthorized", 401, message);
  }
}

/** The caller's role may not do this (lib/access/roles.ts). Always 403. */
export class ForbiddenError extends DomainError {
  constructor(message = "Your role in this organization does not allow this.") {
    super("forbidden", 403, message);
  }
}

export class NotFoundError extends DomainError {
  constructor(what: string) {
    super("not_found", 404, `${what} not found.`);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super("conflict", 409, message);
  }
}

/** Replay refused: an attempt at the delivery is in flight (even if it was buried meanwhile). Always 409. */
export class AttemptInFlightError extends DomainError {
  constructor() {
    super("attempt_in_flight", 409, "An attempt at this delivery is in flight; replay it once that attempt has finished.");
  }
}

/** A per-organization quota (e.g. ORG_MAX_ENDPOINTS) would be exceeded. Always 409. */
export class LimitReachedError extends DomainError {
  constructor(message: string) {
    super("limit_reached", 409, message);
  }
}

/** A destination's filter that compileFilter refuses (lib/destinations/filter.ts); the message names its path. Always 400. */
export class InvalidFilterError extends DomainError {
  constructor(message: string) {
    super("invalid_filter", 400, message);
  }
}

/** The default destination cannot be deleted: the endpoint's own fields are its (API.md "Destinations"). Always 409. */
export class DefaultDestinationError extends DomainError {
  constructor() {
    super("default_destination", 409, "An endpoint always keeps its default destination (its destinationUrl, paused and retry settings are that one's); delete the endpoint instead.");
  }
}

export class PayloadTooLargeError extends DomainError {
  constructor(limitBytes: number) {
    super("payload_too_large", 413, `The body is larger than this endpoint's limit of ${limitBytes} bytes.`);
  }
}

export class StoreUnavailableError extends DomainError {
  constructor(message = "The delivery could not be stored; nothing was kept. Retry later.") {
    super("store_unavailable", 503, message);
  }
}

/** The database is down, refusing connections, or cut a statement off (e.g. statement_timeout): 503 with Retry-After. */
export class ServiceUnavailableError extends DomainError {
  constructor(message = "The service is temporarily unavailable (its database is not answering); nothing was changed. Retry in a few seconds.") {
    super("service_unavailable", 503, message);
  }
}

// Errors that say the database is out of reach or shedding work, not that the request was wrong:
// retrying later can succeed, and nothing was committed. Node's socket errors, postgres.js's own
// connection errors, and SQLSTATEs: class 08 (connection exception), 57P01 admin shutdown, 57P02 crash
// shutdown, 57P03 cannot connect now, 57014 statement timeout / cancel, 53xxx insufficient resources
// (53300 too many connections), 40001/40P01 serialization failure / deadlock, 55P03 lock not available.
const UNAVAILABLE_CODES = new Set([
  "ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "ECONNABORTED",
  "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "CONNECT_TIMEOUT",
  "57P01", "57P02", "57P03", "57014", "40001", "40P01", "55P03",
]);

function isUnavailable(error: unknown, depth: number): boolean {
  if (depth > 4 || error === null || typeof error !== "object") return false;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === "string") {
    if (UNAVAILABLE_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || /^53[0-9A-Z]{3}$/.test(code)) return true;
    // ALTER DATABASE … ALLOW_CONNECTIONS false (maintenance): 55000 "database … is not currently accepting connections".
    if (code === "55000" && typeof message === "string" && message.includes("not currently accepting connections")) return true;
  }
  if (error instanceof AggregateError && error.errors.some((inner) => isUnavailable(inner, depth + 1))) return true;
  return isUnavailable(cause, depth + 1); // drizzle wraps the driver's error in DrizzleQueryError's cause
}

/** The one place that decides "the database is unavailable": that error as a 503, else null. */
export function asServiceUnavailable(error: unknown): ServiceUnavailableError | null {
  if (error instanceof ServiceUnavailableError) return error;
  return isUnavailable(error, 0) ? new ServiceUnavailableError() : null;
}

/** The provider's event id is not 1–255 printable characters (API.md, Tenancy). Always 400. */
export class InvalidEventIdError extends DomainError {
  constructor(message: string) {
    super("invalid_event_id", 400, message);
  }
}

/** The database refused this request's own content: retrying it can never succeed. Always 422. */
export class UnstorableDeliveryError extends DomainError {
  constructor(message = "This request's content cannot be stored (the database refused it); nothing was kept. Retrying will not help.") {
    super("unstorable_delivery", 422, message);
  }
}

/** Over a per-organization limit (ingest requests per second, bytes in flight, searches at once): 429 with Retry-After. */
export class TooManyRequestsError extends DomainError {
  constructor(
    code: "rate_limited" | "too_many_bytes_in_flight" | "too_many_searches",
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(code, 429, message);
  }
}

export type SignatureErrorCode = "invalid_signature" | "missing_signature" | "timestamp_out_of_tolerance";

/** A request whose signature does not prove it came from the provider. Always 401. */
export class SignatureError extends DomainError {
  constructor(code: SignatureErrorCode, message: string) {
    super(code, 401, message);
  }
}
