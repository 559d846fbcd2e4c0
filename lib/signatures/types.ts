import type { SignatureError } from "@/lib/errors";

/** Settings of the `generic-hmac` provider, stored on the endpoint. */
export interface GenericHmacConfig {
  /** Header carrying the signature, e.g. "x-signature". Case-insensitive. */
  header: string;
  algorithm: "sha256" | "sha1";
  encoding: "hex" | "base64";
  /** Text before the signature in the header value, e.g. "sha256=". */
  prefix?: string | null;
  /** Header carrying the sender's event id, used as the dedupe key. */
  idHeader?: string | null;
}

export interface VerifyInput {
  /** The exact bytes received. */
  body: Buffer;
  /** Request headers with lower-cased names. */
  headers: Record<string, string>;
  /**
   * The URL the provider sent to, as it saw it: APP_URL + /in/{endpointId} + the query string as
   * received (Twilio, Square and HubSpot sign it; behind a proxy our own request URL is not it).
   */
  url: string;
  /** The request method, upper case (HubSpot v3 signs it). */
  method: string;
  /**
   * What may have signed: the current one first, then a previous one still in its grace period. A
   * shared secret for HMAC schemes; the provider's public key for Discord and SendGrid.
   */
  secrets: string[];
  toleranceSeconds: number;
  now: Date;
  genericHmac?: GenericHmacConfig | null;
}

/** What identify reads: the headers and the body, no secret. */
export type IdentifyInput = Pick<VerifyInput, "body" | "headers">;

/** A request's event id (the dedupe key) and event type, as its provider names them. */
export interface RequestIdentity {
  externalId: string | null;
  eventType: string | null;
}

/** What a provider handshake is answered with, instead of storing the request. */
export type HandshakeAnswer =
  | { kind: "json"; body: unknown }
  | { kind: "text"; body: string }
  /** 204, no body (Discord's webhook-event PING). */
  | { kind: "no-content" };

export interface VerifiedRequest {
  /** The provider's own event id: the dedupe key. null when the provider gives none (a unique id is used). */
  externalId: string | null;
  eventType: string | null;
  /** Set when the request is a provider handshake (Slack url_verification, Zoom url_validation…): answered, never stored. */
  handshake?: HandshakeAnswer;
}

/** A subscription handshake sent with GET (Meta's hub.challenge). */
export interface GetHandshakeInput {
  query: URLSearchParams;
  /** The endpoint's verify token, when one is set. */
  verifyToken: string | null;
}

/**
 * One provider: how it signs (verify), and what the dashboard tells a person setting it up.
 * verify throws SignatureError; it never returns on a bad signature.
 */
export interface SignatureVerifier {
  /** The provider's name as people know it. */
  displayName: string;
  /** What the endpoint's secret is called at the provider ("Signing secret", "Public key"…). */
  secretLabel: string;
  /** Where to find the secret at the provider and what to paste where. */
  setupHint: string;
  /** Why `secret` can never verify (a public key that does not parse…), or null. Checked when it is set. */
  secretProblem?(secret: string): string | null;
  /** Present when the provider's GET handshake needs a per-endpoint verify token: what to do with it. */
  verifyTokenHint?: string;
  verify(input: VerifyInput): VerifiedRequest;
  /**
   * The event id and type the request claims, read as verify reads them but without checking the signature:
   * what a quarantined request is shown as (never trusted, never a header or the body). Absent: nothing read.
   */
  identify?(input: IdentifyInput): RequestIdentity;
  /**
   * Answers a GET handshake, null when the GET is not one (405); throws SignatureError when it is one
   * this endpoint must refuse. Absent: GET is always 405.
   */
  answerGet?(input: GetHandshakeInput): HandshakeAnswer | null;
}

export type { SignatureError };
