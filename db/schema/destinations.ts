// Destinations: where an endpoint's stored requests are handed. Part of the one schema (db/schema.ts
// re-exports it). The delivery engine's lanes: its caps, slots, pause and retries are a destination's.
import { sql } from "drizzle-orm";
import { boolean, doublePrecision, index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { tstz } from "./columns";
import { endpoints } from "./endpoints";
import { organizations } from "./tenants";

export const DESTINATION_TYPES = ["http", "pull"] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/**
 * An endpoint's destinations. Every endpoint has its default one, whose id is `dst_` and the endpoint id's
 * digits (lib/destinations/destination-ids.ts), so that migration 0036 could give each existing delivery its
 * destination without looking one up; the endpoint's `destinationUrl`, `paused`, `maxAttempts`,
 * `retryBaseSeconds`, `timeoutMs` and outbound secret are the default destination's (API.md).
 */
export const destinations = pgTable(
  "destinations",
  {
    id: text().primaryKey(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    endpointId: text().notNull().references(() => endpoints.id, { onDelete: "cascade" }),
    name: text().notNull(),
    type: text({ enum: DESTINATION_TYPES }).notNull().default("http"),
    /** Where an http destination posts; null for a pull destination. */
    url: text(),
    isDefault: boolean().notNull().default(false),
    /** The filter as saved (lib/destinations/filter.ts compiles it); null matches every request. */
    filter: jsonb(),
    /** Deliveries started per second at most (may be below 1), and how many may start at once after a quiet spell. */
    ratePerSecond: doublePrecision(),
    rateBurst: integer(),
    /**
     * The rate limit's token bucket, as of rateRefilledAt (null: full). Written only by the claim, under the
     * destination's slot lock, so the limit holds across any number of workers (lib/delivery/engine/sql/claim.ts).
     */
    rateTokens: doublePrecision(),
    rateRefilledAt: tstz(),
    orderingKey: text(),
    paused: boolean().notNull().default(false),
    maxAttempts: integer().notNull().default(8),
    retryBaseSeconds: integer().notNull().default(5),
    timeoutMs: integer().notNull().default(15_000),
    /** Encrypted at rest (lib/crypto/secret-box.ts). */
    outboundSecretEncrypted: text(),
    /** A dead-delivery incident of its own once this many went dead (not buried) within the window; null: its endpoint's, at the first. */
    /** Its own pending-age alert (lib/alerts/evaluate-destination-pending-age.ts); null: its endpoint's alertPendingAgeSeconds covers it. */
    alertPendingAgeSeconds: integer(),
    deadThreshold: integer(),
    deadWindowMinutes: integer(),
    /** Alert channels its incidents are told on; null: its endpoint's. */
    alertChannelIds: text().array(),
    /** The circuit breaker (API.md "Automatic pause"): paused once this many attempts in a row failed over at least these minutes. */
    autoPauseFailures: integer(),
    autoPauseMinutes: integer(),
    /** Attempts failed in a row, and when the first of them started: written by the attempts' finish (lib/delivery/engine/sql/finish.ts). */
    consecutiveFailures: integer().notNull().default(0),
    failingSince: tstz(),
    /** Why the latest of those attempts failed, for the pause's notification. */
    lastFailureReason: text(),
    /** When the breaker paused it; cleared by a resume. */
    autoPausedAt: tstz(),
    createdAt: tstz().notNull().defaultNow(),
    updatedAt: tstz().notNull().defaultNow(),
    /**
     * Deleted, its deliveries not yet ended: hidden from every read and from ingest, paused, and removed once the
     * job that buries its waiting deliveries has nothing left (a deleted endpoint's deliveries go the same way).
     */
    deletedAt: tstz(),
  },
  (t) => [
    index().on(t.endpointId, t.createdAt),
    // An organization's attempts in flight are its destinations' slots summed (the claim, sql/claim.ts).
    index().on(t.organizationId),
    uniqueIndex("destinations_one_default_idx").on(t.endpointId).where(sql`is_default`),
    // The alert sweep's look for destinations the breaker paused (lib/alerts/check-alerts.ts).
    index("destinations_auto_paused_idx").on(t.endpointId).where(sql`auto_paused_at is not null`),
  ],
);
