// Domain errors. Route handlers map them to HTTP through one function (lib/http/error-response.ts),
// so every status code and error body is decided in one place.

export type ErrorCode =
  | "validation_error"
  | "unauthorized"
  | "not_found"
  | "conflict"
  | "limit_reached"
  | "method_not_allowed"
  | "payload_too_large"
  | "invalid_signature"
  | "missing_signature"
  | "timestamp_out_of_tolerance"
  | "store_unavailable"
  | "invalid_event_id"
  | "unstorable_delivery"
  | "rate_limited"
  | "too_many_bytes_in_flight";

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

/** A per-organization quota (e.g. ORG_MAX_ENDPOINTS) would be exceeded. Always 409. */
export class LimitReachedError extends DomainError {
  constructor(message: string) {
    super("limit_reached", 409, message);
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

/** Over a per-organization ingest limit (requests per second, bytes in flight): 429 with Retry-After. */
export class TooManyRequestsError extends DomainError {
  constructor(
    code: "rate_limited" | "too_many_bytes_in_flight",
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
