// Alerting's tables: incidents (an alert condition on an endpoint) and the mail outbox. Part of the
// one schema (db/schema.ts re-exports it); kept apart so that file stays about deliveries.
import { sql } from "drizzle-orm";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { tstz } from "./columns";
import { destinations } from "./destinations";
import { endpoints } from "./endpoints";
import { organizations } from "./tenants";


export const INCIDENT_KINDS = ["pending_age", "dead_deliveries", "destination_auto_paused"] as const;
export type IncidentKind = (typeof INCIDENT_KINDS)[number];

/** An alert condition on an endpoint (or one of its destinations), open until it clears; see lib/alerts. At most one open per (endpoint, kind, destination). */
export const incidents = pgTable(
  "incidents",
  {
    id: text().primaryKey(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    endpointId: text().notNull().references(() => endpoints.id, { onDelete: "cascade" }),
    kind: text({ enum: INCIDENT_KINDS }).notNull(),
    /** destination_auto_paused: the destination the breaker paused. */
    destinationId: text().references(() => destinations.id, { onDelete: "cascade" }),
    openedAt: tstz().notNull(),
    resolvedAt: tstz(),
    /** The last evaluation that still saw the condition (over the threshold, or new dead deliveries). */
    lastSeenAt: tstz().notNull(),
    /** pending_age: the endpoint's threshold when the incident opened, and the largest age seen. */
    thresholdSeconds: integer(),
    peakAgeSeconds: integer(),
    /** dead_deliveries: how many went dead during the incident, how many of those a mail has named. */
    deadCount: integer().notNull().default(0),
    notifiedDeadCount: integer().notNull().default(0),
    /** dead_deliveries: deliveries that went dead up to this instant have been counted. */
    countedUntil: tstz(),
    lastError: text(),
    /** When the last mail for this incident was queued; reminders and the hourly limit count from it. */
    lastNotifiedAt: tstz(),
    notificationCount: integer().notNull().default(0),
    /** Why the last mail for this incident could not be sent (cleared when one is sent). */
    notifyError: text(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("incidents_one_open_idx").on(t.endpointId, t.kind, sql`coalesce(destination_id, '')`).where(sql`resolved_at is null`),
    index().on(t.organizationId, t.openedAt.desc()),
    index().on(t.endpointId, t.kind, t.openedAt),
  ],
);

export const MAIL_STATUSES = ["queued", "sent", "logged", "retrying", "failed"] as const;
export type MailStatus = (typeof MAIL_STATUSES)[number];

/** Every mail the product sends or tries to: the outbox, and the dev mailbox when SMTP_URL is unset. */
export const mails = pgTable(
  "mails",
  {
    id: text().primaryKey(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    incidentId: text().references(() => incidents.id, { onDelete: "set null" }),
    recipients: text().array().notNull(),
    subject: text().notNull(),
    textBody: text().notNull(),
    htmlBody: text().notNull(),
    /**
     * The link a mail must carry to its recipient alone (an invitation, an alert-address confirmation). The
     * bodies hold SECRET_LINK_PLACEHOLDER in its place (lib/mail/secret-link.ts); the link is put in at send
     * time and cleared once the mail is settled (sent, logged or failed), so no page can ever show it.
     */
    secretLink: text(),
    /** Whether the mail carried a secret link: then only its recipient, if a member, sees it in the mailbox. */
    carriesSecret: boolean().notNull().default(false),
    /** queued → sent (SMTP) | logged (no SMTP_URL); retrying after a failure; failed when retries ran out. */
    status: text({ enum: MAIL_STATUSES }).notNull().default("queued"),
    attempts: integer().notNull().default(0),
    error: text(),
    messageId: text(),
    createdAt: tstz().notNull().defaultNow(),
    sentAt: tstz(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [index().on(t.organizationId, t.createdAt.desc(), t.id.desc())],
);

/**
 * Addresses outside the organization that asked to receive its alerts (an endpoint's alertEmail that is
 * no member's). One row per (organization, address): confirmed once, usable on every endpoint. Until
 * confirmed, alerts go to the owners instead (lib/alerts/alert-recipients.ts).
 */
export const alertEmailConfirmations = pgTable(
  "alert_email_confirmations",
  {
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** Lower-cased. */
    email: text().notNull(),
    /** sha256 (hex) of the token in the confirmation link; the token itself is never stored. */
    tokenHash: text().notNull().unique(),
    tokenExpiresAt: tstz().notNull(),
    /** When the last confirmation mail was queued: at most one an hour per address. */
    lastSentAt: tstz().notNull(),
    confirmedAt: tstz(),
    createdAt: tstz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.email] })],
);

export const ALERT_CHANNEL_TYPES = ["email", "slack", "webhook", "pagerduty"] as const;
export type AlertChannelType = (typeof ALERT_CHANNEL_TYPES)[number];

/** Where an organization's incidents are told (API.md "Alerts"), named by endpoints and destinations (alertChannelIds). */
export const alertChannels = pgTable(
  "alert_channels",
  {
    id: text().primaryKey(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    name: text().notNull(),
    type: text({ enum: ALERT_CHANNEL_TYPES }).notNull(),
    /** What the API shows: the address or URL; a Slack URL or a routing key only masked (its full form is a credential). */
    target: text().notNull(),
    /** A Slack URL or a PagerDuty routing key, encrypted at rest (lib/crypto/secret-box.ts). */
    targetEncrypted: text(),
    /** A webhook channel's signing secret (whsec_…), encrypted; shown once, at creation. */
    secretEncrypted: text(),
    createdAt: tstz().notNull().defaultNow(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [index().on(t.organizationId, t.createdAt, t.id)],
);

export const NOTIFICATION_EVENTS = ["opened", "resolved", "reminder", "update", "test"] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];
export const NOTIFICATION_STATUSES = ["queued", "sent", "retrying", "failed"] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];

/**
 * One notification of an incident (or a channel's test) on one channel, or by the default mail (channel null):
 * whether it arrived. A mail's own fate is its mail's (mail_id); the others' is written by their job.
 * Opened and resolved go once per (incident, channel).
 */
export const alertNotifications = pgTable(
  "alert_notifications",
  {
    id: text().primaryKey(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    /** Set null when its incident goes with its endpoint: a resolution told on deletion is still sent and shown. */
    incidentId: text().references(() => incidents.id, { onDelete: "set null" }),
    channelId: text().references(() => alertChannels.id, { onDelete: "set null" }),
    channelType: text({ enum: ALERT_CHANNEL_TYPES }).notNull(),
    channelName: text().notNull(),
    event: text({ enum: NOTIFICATION_EVENTS }).notNull(),
    /** What is told (lib/alerts/incident-message.ts), as of the decision. */
    message: jsonb().notNull(),
    mailId: text().references(() => mails.id, { onDelete: "set null" }),
    status: text({ enum: NOTIFICATION_STATUSES }).notNull().default("queued"),
    attempts: integer().notNull().default(0),
    lastError: text(),
    sentAt: tstz(),
    createdAt: tstz().notNull().defaultNow(),
    updatedAt: tstz().notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("alert_notifications_once_idx")
      .on(t.incidentId, t.channelId, t.event)
      .where(sql`incident_id is not null and channel_id is not null and event in ('opened', 'resolved')`),
    index().on(t.organizationId, t.createdAt),
    index().on(t.incidentId),
    index().on(t.channelId),
  ],
);
