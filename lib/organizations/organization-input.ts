import { z } from "zod";
import { DigestSettingsInput } from "@/lib/digest/digest-settings-input";

/** API.md: retentionDays is a whole number of days from 1 to 365 (the database checks it too). */
export const RETENTION_DAYS = { min: 1, max: 365, default: 30 } as const;

const retentionMessage = `retentionDays must be a whole number of days from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}`;

/** PATCH /api/v1/organization: only the fields given change; unknown fields are refused. */
export const UpdateOrganizationInput = z.strictObject({
  name: z.string({ error: "name must be text" }).trim().min(1, "name must not be empty").max(200, "name must be at most 200 characters"),
  retentionDays: z
    .number({ error: retentionMessage })
    .int(retentionMessage)
    .min(RETENTION_DAYS.min, retentionMessage)
    .max(RETENTION_DAYS.max, retentionMessage),
  /** The daily digest (lib/digest): `{hourUtc, recipients?}`, or null to turn it off. */
  digest: DigestSettingsInput,
}).partial();
export type UpdateOrganizationInput = z.input<typeof UpdateOrganizationInput>;
