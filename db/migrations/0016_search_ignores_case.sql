-- Issue #14: search ignores case, and a pending-age alert counts from the latest replay.
-- pending_since: when the delivery began waiting (its receipt, or its latest replay). A constant default is
-- kept once in the catalog, not written into every row: existing rows read this migration's time, new rows
-- their insert's now(), the same as received_at. Only the backlog needs its real value, set below; settled
-- rows are never read for it while settled, and a replay sets it.
-- Built online after this migration (db/online-indexes.ts) rather than here, where they would stop ingest's
-- writes for the length of the build:
--   deliveries_endpoint_pending_since_idx (endpoint_id, pending_since) where status in ('pending', 'delivering'),
--     after which deliveries_endpoint_open_idx is dropped concurrently (its queries moved to pending_since);
--   deliveries_org_external_id_lower_idx (organization_id, lower(external_id)).
ALTER TABLE "deliveries" ADD COLUMN "pending_since" timestamp with time zone DEFAULT now() NOT NULL;--> statement-breakpoint
-- The backlog waits since its receipt: a replay made before this migration is not known. Few rows, found
-- through deliveries_org_open_idx.
UPDATE "deliveries" SET "pending_since" = "received_at" WHERE status in ('pending', 'delivering');
