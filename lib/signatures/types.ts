import type { SignatureError } from "@/lib/errors";

export const PROVIDERS = [
  "standard-webhooks",
  "svix",
  "stripe",
  "github",
  "shopify",
  "slack",
  "generic-hmac",
  "none",
] as const;
export type Provider = (typeof PROVIDERS)[number];

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
  /** Secrets that may have signed: the current one first, then a previous one still in its grace period. */
  secrets: string[];
  toleranceSeconds: number;
  now: Date;
  genericHmac?: GenericHmacConfig | null;
}

export interface VerifiedRequest {
  /** The provider's own event id: the dedupe key. null when the provider gives none (a unique id is used). */
  externalId: string | null;
  eventType: string | null;
  /**
   * Set when the request is a provider handshake (Slack url_verification): answer 200 with this JSON
   * and store nothing.
   */
  handshakeResponse?: unknown;
}

/** Verifies one provider's scheme. Throws SignatureError; never returns on a bad signature. */
export interface SignatureVerifier {
  verify(input: VerifyInput): VerifiedRequest;
}

export type { SignatureError };
