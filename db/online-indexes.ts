// Indexes built online: CREATE INDEX CONCURRENTLY, after the drizzle migrations and outside their
// transaction, so that building one on a big table does not hold ingest's inserts for the length of
// the build (a plain CREATE INDEX takes a lock that stops every write to the table until it ends).
// lib/runtime/build-online-indexes.ts applies them on every migrate, each once: a valid index of that
// name is left alone, an INVALID one (a build that was interrupted) is dropped and built again.
// How a migration uses this: ARCHITECTURE.md, "Migrations".

export interface OnlineIndex {
  /** The index's name in the public schema: how a later migrate finds it again. A changed definition takes a new name. */
  name: string;
  /** What follows `create index concurrently <name> on`: table, method, columns, predicate. */
  on: string;
  /** Indexes this one takes over from: dropped concurrently once this one is valid (never before, so their queries are never left without one). */
  replaces?: readonly string[];
  /**
   * Its columns' statistics targets set to 0 (on every migrate; new partitions copy them, migration 0050), so that
   * ANALYZE never evaluates its expressions: it would for every row it samples (up to 30,000 a partition).
   */
  withoutStatistics?: true;
}

/**
 * The time bucket of a delivery id the body's word index holds beside the words: its first 10 characters,
 * `dlv_g` (lib/ids.ts: a time-ordered id) and the first 5 of the 9 base-36 digits of its milliseconds, ~28 min
 * of receipts per bucket. A search asks for a slice's buckets one by one, each an exact key that GIN ANDs with
 * q's words by skipping through them (lib/search/search-deliveries.ts, inBucketsOf).
 */
export const BODY_INDEX_TIME_BUCKET = { marker: "dlv_g", length: 10, ms: 36 ** 4 } as const;

export const ONLINE_INDEXES: readonly OnlineIndex[] = [
  // Migration 0021: the backlog by when it began waiting (a replay restarts the wait), for the oldest pending age;
  // with the id, so that the rescue sweep's walk (orphan_scan_cursors) is the index in order, ties included.
  // Takes over from 0016's deliveries_endpoint_pending_since_idx (without the id), which took over from
  // deliveries_endpoint_open_idx (endpoint_id, received_at).
  {
    name: "deliveries_endpoint_waiting_idx",
    on: `"deliveries" using btree ("endpoint_id","pending_since","id") where status in ('pending', 'delivering')`,
    replaces: ["deliveries_endpoint_pending_since_idx", "deliveries_endpoint_open_idx"],
  },
  // Migration 0036: a destination's parked deliveries in line (the wake, a chain, a claim naming none); the
  // engine's lanes are destinations. Takes over from deliveries_endpoint_parked_idx (by endpoint).
  {
    name: "deliveries_destination_parked_idx",
    on: `"deliveries" using btree ("destination_id","parked_at","id") where parked_at is not null`,
    replaces: ["deliveries_endpoint_parked_idx"],
  },
  // Migration 0036: a destination's claims (the rescue sweep's lapsed claims and recount). Takes over from
  // deliveries_endpoint_in_flight_idx (by endpoint).
  {
    name: "deliveries_destination_in_flight_idx",
    on: `"deliveries" using btree ("destination_id","lease_expires_at") where status = 'delivering'`,
    replaces: ["deliveries_endpoint_in_flight_idx"],
  },
  // Migration 0041: a destination's oldest waiting delivery (its stats, /api/metrics), as
  // deliveries_endpoint_waiting_idx gives its endpoint's: without it, an endpoint's other destinations' backlog
  // would be walked through to find this one's.
  {
    name: "deliveries_destination_waiting_idx",
    on: `"deliveries" using btree ("destination_id","pending_since") where status in ('pending', 'delivering')`,
  },
  // Migration 0016: search q finds an external id whatever its case.
  { name: "deliveries_org_external_id_lower_idx", on: `"deliveries" using btree ("organization_id",lower("external_id"))` },
  // Migration 0020: the bodies not searchable yet, by organization: the indexer's work list, and what a search
  // tests one by one. Small: a row leaves it within seconds of its arrival.
  { name: "delivery_payloads_unsearchable_idx", on: `"delivery_payloads" using btree ("organization_id") where not "searchable"` },
  // Migration 0048: search q by whole words in bodies up to 64 KiB (lib/search/body-words.ts), once
  // lib/search/index-bodies.ts has made them searchable (ingest's statement makes no entry), with the time bucket
  // of the delivery id in front (btree_gin), so that a search can ask for q's bodies in a slice of time:
  // PostgreSQL ANDs the two in the index, and fetches only those (migration 0031's reasons, below). A body's
  // words (inbox_body_word_vector: tens for a ~1 KB Stripe-like body, where its trigrams are hundreds), with no
  // positions: a phrase is tested on the body after. Takes over from 0031's trigram index, which serves searches
  // (through q's key) until this one is valid, and its own predecessors: 0020's
  // delivery_payloads_body_searchable_trgm_idx, which took over from 0019's delivery_payloads_body_trgm_idx (every body
  // at ingest). 0031's delivery_payloads_body_by_bucket_trgm_idx had the bucket, after
  // delivery_payloads_body_by_time_trgm_idx's ~1.3 s buckets (12 characters), which a slice could only ask for as a
  // range, and GIN collects a range's every entry, every organization's, before ANDing it. Not `delivery_id`
  // itself: the floor every query of delivery_payloads names (delivery_id >= floor) would then be an index
  // condition too, a scan of every key from the floor on.
  {
    name: "delivery_payloads_body_by_bucket_words_idx",
    on: `"delivery_payloads" using gin (left("delivery_id", ${BODY_INDEX_TIME_BUCKET.length}), inbox_body_word_vector("headers", "body")) where "searchable" and octet_length("body") <= 65536`,
    replaces: [
      "delivery_payloads_body_by_bucket_trgm_idx",
      "delivery_payloads_body_by_time_trgm_idx",
      "delivery_payloads_body_searchable_trgm_idx",
      "delivery_payloads_body_trgm_idx",
    ],
    // ANALYZE of 30,000 realistic bodies: 13.4 s with the words' statistics, 0.23 s without (0050's note). A search
    // asks for one bucket's matches by its own plan (lib/search/search-deliveries.ts), which needs no word frequencies.
    withoutStatistics: true,
  },
  // Migration 0033: the deliveries whose id's time bucket is more than one from their receipt's (an id made before
  // ids held their time, or by a clock far off the database's): what a search's slice of time asks for besides
  // the buckets around its times (lib/search/search-deliveries.ts). Nearly empty; ingest pays the predicate.
  {
    name: "deliveries_org_off_clock_idx",
    on: `"deliveries" using btree ("organization_id","received_at" desc nulls last,"id" desc nulls last) where inbox_delivery_id_off_clock("id", "received_at")`,
  },
];
