// The daily digest's setting as PATCH /api/v1/organization takes it (API.md "Alerts", "Daily digest"):
// `{hourUtc, recipients?}` turns it on (or changes it), null turns it off.
import { z } from "zod";

/** Enough for a team; a list longer than this is a mailing list's job. */
export const DIGEST_MAX_RECIPIENTS = 20;

const emailMessage = "digest.recipients must be email addresses";
const hourMessage = "digest.hourUtc must be a whole hour from 0 to 23 (UTC)";

export const DigestSettingsInput = z
  .strictObject({
    hourUtc: z.number({ error: hourMessage }).int(hourMessage).min(0, hourMessage).max(23, hourMessage),
    /** Omitted or null: the organization's owners, as they are on the day. */
    recipients: z
      .array(z.string({ error: emailMessage }).trim().toLowerCase().pipe(z.email(emailMessage)), { error: "digest.recipients must be a list of email addresses" })
      .min(1, "digest.recipients must name at least one address (omit it to mail the owners)")
      .max(DIGEST_MAX_RECIPIENTS, `digest.recipients may name at most ${DIGEST_MAX_RECIPIENTS} addresses`)
      .transform((emails) => [...new Set(emails)])
      .nullish(),
  }, { error: "digest must be {hourUtc, recipients?} or null" })
  .nullable();
export type DigestSettingsInput = z.output<typeof DigestSettingsInput>;

/** What the organization's row holds for a setting: both columns null when off. */
export function digestColumns(digest: DigestSettingsInput): { digestHourUtc: number | null; digestRecipients: string[] | null } {
  return digest === null ? { digestHourUtc: null, digestRecipients: null } : { digestHourUtc: digest.hourUtc, digestRecipients: digest.recipients ?? null };
}

/** The public form of the row's setting (GET /organization): null when off; recipients null means the owners. */
export function presentDigestSettings(row: { digestHourUtc: number | null; digestRecipients: string[] | null }): { hourUtc: number; recipients: string[] | null } | null {
  return row.digestHourUtc === null ? null : { hourUtc: row.digestHourUtc, recipients: row.digestRecipients };
}
