// The token in an invitation link: 256 random bits, of which only the sha256 is stored
// (invitations.token_hash). The link is the only place the token itself ever appears.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { config } from "@/lib/config/config";

/** An invitation link works this long (API.md). */
export const INVITATION_VALID_DAYS = 7;

/** What a token looks like (32 bytes, base64url): anything else is refused before any query. */
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

export function newInvitationToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, tokenHash: hashInvitationToken(token) };
}

export function hashInvitationToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** The token's hash, or null when `token` cannot be one of ours. */
export function tokenHashOf(token: unknown): string | null {
  return typeof token === "string" && TOKEN_FORM.test(token) ? hashInvitationToken(token) : null;
}

/** Compares two hex hashes in constant time (the lookup found the row by hash; this re-checks it without a timing signal). */
export function sameTokenHash(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

export function invitationUrl(token: string): string {
  return `${config().APP_URL}/invite/${token}`;
}
