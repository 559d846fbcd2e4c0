// What one attempt's result means for the delivery (API.md "Outcome of an attempt"). Pure.
import { STATUS_CODES } from "node:http";

/** How a request to a destination can fail before an HTTP answer arrives. */
export type SendFailureKind =
  /** No answer within the destination's timeout. */
  | "timeout"
  /** Refused, reset, DNS failure, TLS failure: the network said no. */
  | "connection"
  /** The destination resolves to a private address and INBOX_ALLOW_PRIVATE_DESTINATIONS is off. */
  | "forbidden_destination"
  /** The stored URL (or outbound secret) cannot be used at all. */
  | "bad_destination"
  /** Our worker is shutting down; the destination is not to blame. */
  | "interrupted";

export type SendResult =
  | { kind: "response"; statusCode: number; retryAfterMs: number | null; location?: string }
  | { kind: SendFailureKind; message: string };

export type Outcome =
  | { kind: "delivered" }
  | { kind: "retry"; reason: string; retryAfterMs: number | null }
  | { kind: "dead"; reason: string }
  /** Try again at once, without counting the attempt against maxAttempts. */
  | { kind: "interrupted"; reason: string };

/** A redirect target without its query or fragment, which may carry tokens we must not keep or log. */
function withoutQuery(location: string): string {
  return location.replace(/[?#].*$/s, "");
}

function describeStatus(statusCode: number): string {
  const text = STATUS_CODES[statusCode];
  return text ? `HTTP ${statusCode} ${text}` : `HTTP ${statusCode}`;
}

/** 2xx delivered; 408, 429, 5xx, 3xx, timeouts and network errors retry; 410 and other 4xx are final. */
export function classifyOutcome(result: SendResult): Outcome {
  switch (result.kind) {
    case "response": {
      const { statusCode } = result;
      if (statusCode >= 200 && statusCode < 300) return { kind: "delivered" };
      const reason = describeStatus(statusCode);
      if (statusCode === 410) return { kind: "dead", reason: `${reason}: the destination asked not to be sent this again` };
      if (statusCode >= 400 && statusCode < 500 && statusCode !== 408 && statusCode !== 429) {
        return { kind: "dead", reason: `${reason}: the destination refused it; fix it there, then replay` };
      }
      if (statusCode >= 300 && statusCode < 400) {
        const where = result.location ? ` to ${withoutQuery(result.location).slice(0, 300)}` : "";
        return { kind: "retry", reason: `${reason}: redirect${where} not followed`, retryAfterMs: null };
      }
      return { kind: "retry", reason, retryAfterMs: result.retryAfterMs };
    }
    case "timeout":
    case "connection":
      return { kind: "retry", reason: result.message, retryAfterMs: null };
    case "forbidden_destination":
    case "bad_destination":
      return { kind: "dead", reason: result.message };
    case "interrupted":
      return { kind: "interrupted", reason: result.message };
  }
}
