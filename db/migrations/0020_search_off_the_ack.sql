-- Issue #13: the body's trigram entry leaves ingest's acknowledgement. A payload is stored with searchable
-- false and no trigram entry; lib/delivery/index-bodies.ts makes the entries later, an organization at a time.
-- The payloads already stored are in the old trigram index: they are searchable. Adding a column with a
-- constant default rewrites nothing (the default is kept in the catalog), so this takes a moment however big
-- the table; the default for new rows is then false.
ALTER TABLE "delivery_payloads" ADD COLUMN "searchable" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "delivery_payloads" ALTER COLUMN "searchable" SET DEFAULT false;
-- Built online after this migration (db/online-indexes.ts): delivery_payloads_unsearchable_idx, and
-- delivery_payloads_body_searchable_trgm_idx, which takes over from delivery_payloads_body_trgm_idx.
