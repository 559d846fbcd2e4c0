-- Search `q` (lib/delivery/list-deliveries.ts) finds text inside bodies. body is bytea and need not be UTF-8
-- (convert_from raises on such bodies), so the trigram index is on encode(body, 'escape'): plain ASCII that
-- never raises, in which every byte always becomes the same text, so bytes found inside a body are found as
-- text inside its encoding (the query then checks the bytes themselves). An expression index, not a stored
-- column: the bodies are not kept twice.
-- Only delivered and dead deliveries, up to 64 KiB. Keeping a body's trigrams costs about a millisecond or more
-- of the database's time, and every update of a delivery writes a new row version (status is in the predicates
-- of several partial indexes, so updates are never HOT): indexed on every row, ingest lost two thirds of its
-- throughput and the worker's updates four fifths (bench/dashboard/insert-cost.ts). This way ingest pays
-- nothing and the worker pays once per delivery, when it becomes delivered or dead. The query reaches
-- pending/delivering deliveries (the backlog) through deliveries_org_open_idx and bodies over 64 KiB through
-- deliveries_org_large_body_idx. pg_trgm is a trusted extension (PostgreSQL 13+), in postgresql-contrib and in
-- the embedded-postgres build.
CREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "deliveries_body_trgm_idx" ON "deliveries" USING gin (encode("body", 'escape') gin_trgm_ops)
  WHERE status IN ('delivered', 'dead') AND size_bytes <= 65536;--> statement-breakpoint
-- `q` also matches event types by substring, case-insensitively (ILIKE).
CREATE INDEX IF NOT EXISTS "deliveries_event_type_trgm_idx" ON "deliveries" USING gin ("event_type" gin_trgm_ops);--> statement-breakpoint

-- /api/metrics counters, recorded when they happen rather than counted from the deliveries each scrape (which
-- grows with the table, and would take back "delivered" and "dead" whenever a person replays). Append-only rows
-- in delivery_counter_events: no index and no shared counter row, so writers never wait on each other;
-- lib/metrics/roll-up-delivery-counters.ts folds them into delivery_counters every minute.
-- Ingest: one statement-level trigger per INSERT statement (a group-commit batch), one row per endpoint.
CREATE OR REPLACE FUNCTION inbox_count_inserted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count)
  SELECT endpoint_id, organization_id, 'received', 0, count(*) FROM inserted GROUP BY 1, 2
  UNION ALL
  SELECT endpoint_id, organization_id, status, attempt_count, count(*) FROM inserted
  WHERE status IN ('delivered', 'dead') GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER deliveries_count_inserted AFTER INSERT ON deliveries REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION inbox_count_inserted_deliveries();--> statement-breakpoint
-- The worker, replay and bury: a row only when a delivery becomes delivered or dead. The WHEN clause is checked
-- before anything is queued, so every other update pays nothing.
CREATE OR REPLACE FUNCTION inbox_count_delivery_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count)
  VALUES (NEW.endpoint_id, NEW.organization_id, NEW.status, NEW.attempt_count, 1);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER deliveries_count_outcome AFTER UPDATE OF status ON deliveries FOR EACH ROW
  WHEN (NEW.status IN ('delivered', 'dead') AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION inbox_count_delivery_outcome();--> statement-breakpoint
-- Deliveries stored before this migration count once: received, and delivered/dead with the attempts they have now.
INSERT INTO delivery_counters (endpoint_id, organization_id, event, attempts, count)
SELECT endpoint_id, organization_id, 'received', 0, count(*) FROM deliveries GROUP BY 1, 2
UNION ALL
SELECT endpoint_id, organization_id, status, attempt_count, count(*) FROM deliveries
WHERE status IN ('delivered', 'dead') GROUP BY 1, 2, 3, 4;
