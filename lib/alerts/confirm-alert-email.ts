import { sql } from "drizzle-orm";
import { getDb } from "@/db";
import { hashAlertEmailToken } from "./alert-email-token";

export type AlertEmailConfirmation =
  | { outcome: "awaiting" | "confirmed" | "already_confirmed"; email: string; organizationName: string }
  | { outcome: "invalid" | "expired" };

const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

/**
 * Looks up (`confirm: false`, for the page a mail scanner may open) or confirms (`confirm: true`, the
 * button) a confirmation link. The token names its organization, as an ingest URL names its endpoint.
 */
export async function confirmAlertEmail(input: { token: string; confirm: boolean }): Promise<AlertEmailConfirmation> {
  if (!TOKEN_FORM.test(input.token)) return { outcome: "invalid" };
  const tokenHash = hashAlertEmailToken(input.token);
  const [row] = await getDb().execute<{ email: string; organization_name: string; confirmed_before: boolean; expired: boolean }>(sql`
    with found as (
      select c.organization_id, c.email, c.confirmed_at is not null as confirmed_before, c.token_expires_at < now() as expired
      from alert_email_confirmations c where c.token_hash = ${tokenHash}
    ), confirmed as (
      update alert_email_confirmations c set confirmed_at = now()
      from found
      where ${input.confirm} and c.token_hash = ${tokenHash} and not found.confirmed_before and not found.expired
    )
    select found.email, o.name as organization_name, found.confirmed_before, found.expired
    from found join organizations o on o.id = found.organization_id`);
  if (!row) return { outcome: "invalid" };
  if (row.confirmed_before) return { outcome: "already_confirmed", email: row.email, organizationName: row.organization_name };
  if (row.expired) return { outcome: "expired" };
  return { outcome: input.confirm ? "confirmed" : "awaiting", email: row.email, organizationName: row.organization_name };
}
