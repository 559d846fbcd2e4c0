// The token in an alert-email confirmation link: 256 random bits, stored only as its sha256.
import { createHash, randomBytes } from "node:crypto";
import { config } from "@/lib/config/config";

export const ALERT_EMAIL_CONFIRMATION = {
  /** A link works this long. */
  validForMs: 7 * 24 * 3_600_000,
  /** At most one confirmation mail per address and organization this often, so the form cannot be used to mail-bomb someone. */
  resendAfterMs: 3_600_000,
} as const;

export function newAlertEmailToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, tokenHash: hashAlertEmailToken(token) };
}

export function hashAlertEmailToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function confirmationUrl(token: string): string {
  return `${config().APP_URL}/confirm-alert-email/${token}`;
}
