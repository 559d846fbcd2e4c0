// The delivery engine's tables: each delivery's small mutable state, its immutable payload, its attempts and
// the slots of the concurrency caps (what is counted of them: counters.ts). Part of the one schema (db/schema.ts
// re-exports it); ARCHITECTURE.md has the state machine and which query uses which index.
import { sql } from "drizzle-orm";
import {
  bigserial,
  boolean,
  customType,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { tstz } from "./columns";
import { destinations } from "./destinations";
import { endpoints } from "./endpoints";
import { organizations } from "./tenants";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

export const DELIVERY_STATUSES = ["pending", "delivering", "delivered", "dead", "filtered"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** Why a delivery is dead (API.md): its attempts used up, a status the destination means as final, or buried by a person or key. */
export const DEAD_REASONS = ["exhausted", "rejected", "buried"] as const;
export type DeadReason = (typeof DEAD_REASONS)[number];

/**
 * Storage layout (db/migrations/0027_delivery_partitions.sql; drizzle-kit does not model partitions, so
 * these declarations are each parent's): deliveries, delivery_payloads and attempts are partitioned by
 * RANGE of the delivery id, which begins with its time (lib/ids.ts): one partition of each per week,
 * made ahead (lib/storage/delivery-partitions.ts), and below them the legacy partitions, which
 * hold every delivery made before the layout. A look-up by id prunes to one partition, and a delivery's
 * payload and attempts share its week, so a week can go as three partitions. No foreign key refers to
 * these tables: inbox_delete_delivery_dependents (a statement trigger) deletes a deleted delivery's
 * payload, attempts and key.
 */
export const deliveries = pgTable(
  "deliveries",
  {
    id: text().primaryKey(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    // No foreign key to endpoints: deleting an endpoint removes its row at once and its deliveries (and, by
    // cascade, their attempts) in bounded batches afterwards (jobs/purge-endpoint-deliveries.ts).
    endpointId: text().notNull(),
    /**
     * The destination it is handed to: the engine's lane (its caps, slots, pause and retries). No foreign key,
     * like endpoint_id. Migration 0036 gave every delivery made before it its endpoint's default destination.
     */
    destinationId: text().notNull(),
    /** Its destination's ordering key's value (lib/destinations/ordering-key.ts): same value, one at a time, in order. */
    orderingValue: text(),
    externalId: text().notNull(),
    eventType: text(),
    status: text({ enum: DELIVERY_STATUSES }).notNull().default("pending"),
    /** The body's length; the body itself and the headers are in deliveryPayloads. */
    sizeBytes: integer().notNull(),
    sourceIp: text(),
    /** A test event (POST /endpoints/{id}/test-event): delivered like the rest, marked `test` in its item. */
    isTest: boolean().notNull().default(false),
    receivedAt: tstz().notNull().defaultNow(),
    attemptCount: integer().notNull().default(0),
    /** Attempts since the last replay (the replay's own included); maxAttempts counts these. */
    autoAttemptCount: integer().notNull().default(0),
    lastStatusCode: smallint(),
    lastError: text(),
    /** Why it is `dead` (DEAD_REASONS), set by the statement that made it so; null otherwise, and on rows dead before migration 0046. */
    deadReason: text({ enum: DEAD_REASONS }),
    nextAttemptAt: tstz(),
    deliveredAt: tstz(),
    updatedAt: tstz().notNull().defaultNow(),
    /** While `delivering`: the graphile-worker job making the attempt, and when its claim lapses (lib/delivery). */
    claimedByJob: text(),
    leaseExpiresAt: tstz(),
    /** Set while `pending` without a job: the endpoint is paused or at its concurrency cap (lib/delivery). */
    parkedAt: tstz(),
    /**
     * Since when the delivery has been waiting: its receipt (the insert's now(), as received_at), or its latest
     * replay. A pending-age alert and the oldest pending age count from it (API.md). Read only while pending or
     * delivering; never before received_at. Deliveries settled before migration 0016 hold that migration's time.
     */
    pendingSince: tstz().notNull().defaultNow(),
  },
  (t) => [
    index("deliveries_org_received_idx").on(t.organizationId, t.receivedAt.desc(), t.id.desc()),
    index("deliveries_endpoint_received_idx").on(t.endpointId, t.receivedAt.desc(), t.id.desc()),
    // The backlog of an endpoint, oldest waiting first: its count, the oldest pending age (overview, stats,
    // metrics, alerts), through pending_since >= received_at its deliveries received in a window, and the rescue
    // sweep's bounded walk (ties in id order). Built online (db/online-indexes.ts), replacing
    // deliveries_endpoint_pending_since_idx (without the id).
    index("deliveries_endpoint_waiting_idx")
      .on(t.endpointId, t.pendingSince, t.id)
      .where(sql`status in ('pending', 'delivering')`),
    // A destination's oldest waiting delivery (its stats, /api/metrics). Built online (db/online-indexes.ts).
    index("deliveries_destination_waiting_idx").on(t.destinationId, t.pendingSince).where(sql`status in ('pending', 'delivering')`),
    // lib/alerts counts, every minute, the deliveries of an endpoint that went dead since its last look.
    index("deliveries_endpoint_dead_idx").on(t.endpointId, t.updatedAt).where(sql`status = 'dead'`),
    // The rescue sweep: lapsed claims, and a destination's attempts in flight recounted. Built online
    // (db/online-indexes.ts), replacing deliveries_endpoint_in_flight_idx (by endpoint).
    index("deliveries_destination_in_flight_idx").on(t.destinationId, t.leaseExpiresAt).where(sql`status = 'delivering'`),
    // A destination's parked deliveries leave in parked_at order; queries order by it so no other index can serve
    // them. Built online (db/online-indexes.ts), replacing deliveries_endpoint_parked_idx (by endpoint).
    index("deliveries_destination_parked_idx").on(t.destinationId, t.parkedAt, t.id).where(sql`parked_at is not null`),
    // The dashboard's list filters (lib/delivery/list-deliveries.ts), newest first, across an organization's endpoints.
    index("deliveries_org_open_idx").on(t.organizationId, t.receivedAt.desc(), t.id.desc()).where(sql`status in ('pending', 'delivering')`),
    index("deliveries_org_dead_idx").on(t.organizationId, t.receivedAt.desc(), t.id.desc()).where(sql`status = 'dead'`),
    index("deliveries_org_event_type_idx").on(t.organizationId, t.eventType, t.receivedAt.desc(), t.id.desc()),
    // Search `q`: the external id, ignoring case (built online, db/online-indexes.ts).
    index("deliveries_org_external_id_lower_idx").on(t.organizationId, sql`lower(${t.externalId})`),
    // Search `q`: bodies too big for delivery_payloads_body_by_bucket_words_idx.
    index("deliveries_org_large_body_idx").on(t.organizationId, t.receivedAt.desc(), t.id.desc()).where(sql`size_bytes > 65536`),
    // Search `q`: the deliveries whose id's time bucket is not within one of their receipt's (an id made before ids
    // held their time, or by a clock far off the database's). A search asks the body index for a stretch of time
    // by the buckets around it, and for these by this index (built online, db/online-indexes.ts; the predicate is
    // migration 0033's function: lib/search/search-buckets.ts).
    index("deliveries_org_off_clock_idx")
      .on(t.organizationId, t.receivedAt.desc(), t.id.desc())
      .where(sql`inbox_delivery_id_off_clock(id, received_at)`),
    // The retention sweep: an organization's settled deliveries, oldest change first.
    index("deliveries_org_settled_idx").on(t.organizationId, t.updatedAt).where(sql`status in ('delivered', 'dead')`),
    // Not declared here (drizzle-kit cannot create the extension first): db/migrations/0004_search_trigram_and_counter_triggers.sql
    // adds pg_trgm and the GIN trigram index deliveries_event_type_trgm_idx.
  ],
);

/**
 * Each delivery's dedupe key: ingest stores a webhook once per endpoint and provider event id, and
 * answers a repeat with the first one's id (API.md). Apart from deliveries because a unique index of a
 * partitioned table must hold its partition key. Written in ingest's statement before its delivery;
 * removed with it.
 */
export const deliveryKeys = pgTable(
  "delivery_keys",
  {
    endpointId: text().notNull(),
    externalId: text().notNull(),
    deliveryId: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.endpointId, t.externalId] })],
);

/**
 * One row per parked delivery (`parked_at` set), so that "is anything parked for this destination?" is one probe of
 * a small table: the worker asks it after every claim and finish (lib/delivery/engine/destination-slots.ts
 * wakeNeededMany), and on `deliveries` it probed the parked index of every week's partition. Kept by the triggers
 * of db/migrations/0028_parked_deliveries.sql in the transaction that parks or unparks the delivery, so it
 * is always what `deliveries` says; no statement writes it by hand.
 */
export const parkedDeliveries = pgTable(
  "parked_deliveries",
  {
    destinationId: text().notNull(),
    deliveryId: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.destinationId, t.deliveryId] })],
);

/**
 * The open deliveries (pending or delivering) that have an ordering value, so that "is an earlier one of this
 * value still open?" (the claim and the wake, for a destination with an ordering key) is one probe of a small
 * table, never a read of every week's partition. Kept by the triggers of db/migrations/0039_ordering.sql in the
 * statement that opens or settles the delivery; no statement writes it by hand.
 */
export const openOrderedDeliveries = pgTable(
  "open_ordered_deliveries",
  {
    destinationId: text().notNull(),
    orderingValue: text().notNull(),
    deliveryId: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.destinationId, t.orderingValue, t.deliveryId] })],
);

/**
 * What a delivery received, apart from its state: written once, in ingest's statement with its delivery, and
 * never updated. Kept out of `deliveries` so that the worker's updates of the small state (claim, finish, park,
 * wake, replay, bury) copy neither headers nor body (only the TOAST pointer of a big body, but a ~1 KB body is
 * inline), and so that the body's word index takes one entry per delivery, and never another.
 * Removed with its delivery (retention, purges, organization deletion) through the cascade.
 */
export const deliveryPayloads = pgTable(
  "delivery_payloads",
  {
    // No foreign key: deleting a delivery deletes its payload by a trigger (STORAGE_LAYOUT, below), and a
    // week's partition goes with its delivery partition. No foreign key to organizations either: the row
    // goes with its delivery, whose own key already checks it.
    deliveryId: text().primaryKey(),
    organizationId: text().notNull(),
    headers: jsonb().$type<Record<string, string>>().notNull(),
    body: bytea().notNull(),
    /**
     * Whether the body is in the word index yet. Ingest stores it false, so that acknowledging a webhook makes
     * no index entry (tens of words per ~1 KB of real JSON: once the biggest part of a real webhook's database
     * cost, as trigrams), and one organization's big bodies never lengthen the statement other organizations' requests share.
     * lib/search/index-bodies.ts sets it, an organization at a time, in bounded turns. Set only, never cleared.
     */
    searchable: boolean().notNull().default(false),
  },
  // Search `q` in bodies (lib/search/search-deliveries.ts): delivery_payloads_body_by_bucket_words_idx, a GIN
  // index on the time bucket of delivery_id (btree_gin) and the words (inbox_body_word_vector, migration 0048) of
  // the searchable bodies up to 64 KiB, and
  // delivery_payloads_unsearchable_idx (organization_id) where not searchable, for the ones not in it yet; both
  // built online (db/online-indexes.ts; not declared here: drizzle-kit cannot build an index concurrently).
);

export const attempts = pgTable(
  "attempts",
  {
    // Unique by its sequence, not by a key: a key of a partitioned table must hold its partition key.
    id: bigserial({ mode: "number" }).notNull(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    // No foreign key, like delivery_payloads: removed with its delivery by a trigger, or with its week.
    deliveryId: text().notNull(),
    number: integer().notNull(),
    trigger: text({ enum: ["auto", "replay"] }).notNull(),
    startedAt: tstz().notNull(),
    durationMs: integer(),
    statusCode: smallint(),
    responseBody: text(),
    error: text(),
    /** The headers the worker set on the request (x-inbox-*, webhook-*); the rest were the stored request's. Migration 0047. */
    requestHeaders: jsonb().$type<Record<string, string>>(),
    /** The answer's headers, the first 8 KiB (RESPONSE_HEADER_BYTES). Migration 0047. */
    responseHeaders: jsonb().$type<Record<string, string>>(),
  },
  // One row per attempt number: a finish run twice (a lost COMMIT reply) cannot record it twice.
  (t) => [uniqueIndex().on(t.deliveryId, t.number)],
);

/**
 * Attempts in flight per destination, for its concurrency cap (lib/delivery/engine/destination-slots.ts): a
 * counter, because counting `delivering` rows walks every recently finished one. Split in shards
 * (by the claiming job) so that the attempts of one busy destination do not all queue on one row;
 * small rows, no index to update, so their updates are HOT.
 */
export const destinationSlots = pgTable(
  "destination_slots",
  {
    destinationId: text().notNull().references(() => destinations.id, { onDelete: "cascade" }),
    shard: smallint().notNull(),
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    inFlight: integer().notNull().default(0),
  },
  // An organization's attempts in flight (its ORG_DELIVERY_CONCURRENCY cap) are its destinations' rows
  // summed, found through the destinations: an index on organization_id would fill with entries of
  // these rows' non-HOT updates (the claim in lib/delivery/engine/sql/claim.ts).
  (t) => [primaryKey({ columns: [t.destinationId, t.shard] })],
);

/**
 * Destinations with deliveries parked because their organization was at its cap of attempts in flight
 * (lib/delivery/engine/destination-slots.ts). An attempt that ends and frees an organization slot looks here,
 * not at every destination of the organization. Rows are added by parking and removed only by the
 * per-minute rescue sweep once nothing is parked there (a park racing that removal is caught by the
 * same sweep's wake-ups a minute later at worst).
 */
export const orgWaitingDestinations = pgTable(
  "org_waiting_destinations",
  {
    organizationId: text().notNull().references(() => organizations.id, { onDelete: "cascade" }),
    // No foreign key: a claim that parks must not fail on a destination deleted meanwhile; the sweep removes such rows.
    destinationId: text().notNull(),
    since: tstz().notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.organizationId, t.destinationId] })],
);

/**
 * Where the rescue sweep's look for deliveries that lost their job (lib/delivery/engine/rescue-deliveries.ts)
 * stopped in an endpoint's open deliveries, in `deliveries_endpoint_waiting_idx` order. Each sweep walks
 * a bounded stretch from here, so a backlog of any size costs every sweep the same; no row means the next
 * walk starts at the oldest.
 */
export const orphanScanCursors = pgTable("orphan_scan_cursors", {
  endpointId: text().primaryKey().references(() => endpoints.id, { onDelete: "cascade" }),
  pendingSince: tstz().notNull(),
  deliveryId: text().notNull(),
});
