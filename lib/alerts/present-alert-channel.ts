// The public alert channel object (API.md "Alerts"). Its webhook secret never leaves here (only at creation,
// create-alert-channel.ts); a Slack URL or routing key only masked.
import type { alertChannels } from "@/db/schema";
import type { AlertEmailStatus } from "./alert-email-status";

export type AlertChannelRow = typeof alertChannels.$inferSelect;

export function presentAlertChannel(row: AlertChannelRow, emailStatus: AlertEmailStatus | null) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    target: row.target,
    /** An email channel whose address has not followed its confirmation link yet: alerts go to the owners meanwhile. */
    awaitingConfirmation: row.type === "email" ? emailStatus === "unconfirmed" : false,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
export type AlertChannelView = ReturnType<typeof presentAlertChannel>;
