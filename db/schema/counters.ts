// What the triggers on deliveries count, and the roll-up's sums of it: what /api/metrics, an endpoint's stats and
// the overview read instead of counting deliveries (lib/metrics/roll-up-delivery-counters.ts). Part of the one
// schema (db/schema.ts re-exports it); ARCHITECTURE.md invariant 16.
import { bigint, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";
import { endpoints } from "./endpoints";
import { organizations } from "./tenants";

/**
 * received, delivered, dead: what /api/metrics counts. removed (deliveries deleted: retention, purges),
 * no_longer_delivered, no_longer_dead (a replay, a bury, a deletion took one out of that state): with them an
 * endpoint's stats tell how many it holds and in which state without counting its deliveries. retrying (+1 or
 * -1: a delivery became or stopped being pending after a failed attempt of its series) is for the overview only,
 * as are the *_by_receipt counts the roll-up makes by the deliveries' receipt minute (migration 0034).
 */
export const DELIVERY_COUNTER_EVENTS = [
  "received", "delivered", "dead", "removed", "no_longer_delivered", "no_longer_dead", "retrying",
  "open_by_receipt", "dead_by_receipt", "retrying_by_receipt",
  // Requests no destination took (migration 0040), for the overview; never in received.
  "filtered",
  // A delivered delivery's wait in milliseconds since its receipt or latest replay (migration 0047), for the charts.
  "latency_ms",
] as const;

/**
 * What /api/metrics and an endpoint's stats count, recorded when it happens by triggers on deliveries
 * (db/migrations/0004_search_trigram_and_counter_triggers.sql, 0022_stats_counters.sql): deliveries stored and
 * deleted (one row per endpoint per statement), each time a delivery becomes delivered or dead (for /api/metrics
 * a replay does not take it back), and each time one stops being so.
 * Append-only: lib/metrics folds it into deliveryCounters every minute. Its one index, by endpoint, lets an
 * endpoint's stats and the overview read that endpoint's events not folded yet, never every tenant's: one
 * entry per endpoint per statement, not per delivery.
 */
export const deliveryCounterEvents = pgTable("delivery_counter_events", {
  endpointId: text().notNull(),
  organizationId: text().notNull(),
  /** The delivery's destination (a filtered one's: its endpoint's default). Migration 0041. */
  destinationId: text().notNull(),
  event: text({ enum: DELIVERY_COUNTER_EVENTS }).notNull(),
  /** delivered/dead: the delivery's attempt_count then; received, removed: 0. */
  attempts: integer().notNull(),
  count: integer().notNull(),
  /** When it happened (the statement's now(): a received event's is its deliveries' received_at). */
  at: tstz().notNull().defaultNow(),
  /**
   * The minute its deliveries were received, on the events of a change of state (the overview's hours count
   * the deliveries received in them as they stand now); null on those of deletions, and before migration 0034.
   */
  receivedMinute: tstz(),
}, (t) => [index("delivery_counter_events_endpoint_idx").on(t.endpointId)]);

/**
 * deliveryCounterEvents summed per destination, event and attempt count; an endpoint's are the sums over its
 * destinations (by endpoint_id's index). No foreign key to destinations: a deleted destination's settled
 * deliveries stay, and so do their counts, until their endpoint goes.
 */
export const deliveryCounters = pgTable(
  "delivery_counters",
  {
    endpointId: text().notNull().references(() => endpoints.id, { onDelete: "cascade" }),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    destinationId: text().notNull(),
    event: text({ enum: DELIVERY_COUNTER_EVENTS }).notNull(),
    attempts: integer().notNull(),
    count: bigint({ mode: "number" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.destinationId, t.event, t.attempts] }), index("delivery_counters_endpoint_idx").on(t.endpointId)],
);

/**
 * deliveryCounterEvents received and delivered, summed per endpoint and minute (by `at`) for an endpoint's stats:
 * its last hour's traffic is then at most 60 rows a figure however busy it is, not a count of the hour's
 * deliveries; and open, dead and retrying by the minute their deliveries were received (`*_by_receipt`, no row
 * of 0), for the overview's hours. Folded in by lib/metrics/roll-up-delivery-counters.ts, which also drops minutes
 * over 25 hours old.
 */
export const deliveryCountsByMinute = pgTable(
  "delivery_counts_by_minute",
  {
    endpointId: text().notNull().references(() => endpoints.id, { onDelete: "cascade" }),
    destinationId: text().notNull(),
    event: text({ enum: DELIVERY_COUNTER_EVENTS }).notNull(),
    minute: tstz().notNull(),
    // bigint since migration 0047: a minute's latency_ms sum.
    count: bigint({ mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.destinationId, t.event, t.minute] }),
    index("delivery_counts_by_minute_endpoint_idx").on(t.endpointId, t.event, t.minute),
  ],
);

/**
 * deliveryCountsByMinute's events summed per hour and kept 31 days, for the week's and month's charts
 * (lib/endpoints/get-traffic-series.ts). Folded by the same roll-up statement; rows of 0 stay until they age out.
 */
export const deliveryCountsByHour = pgTable(
  "delivery_counts_by_hour",
  {
    endpointId: text().notNull().references(() => endpoints.id, { onDelete: "cascade" }),
    destinationId: text().notNull(),
    event: text({ enum: DELIVERY_COUNTER_EVENTS }).notNull(),
    hour: tstz().notNull(),
    count: bigint({ mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.destinationId, t.event, t.hour] }),
    index("delivery_counts_by_hour_endpoint_idx").on(t.endpointId, t.event, t.hour),
  ],
);
