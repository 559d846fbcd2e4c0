-- An endpoint's stats counted its deliveries to tell how many it holds (the biggest endpoint of the 10M bench:
-- 3 million index entries, 487 ms). They now read received − removed from the counters instead; this trigger
-- records the removals, one row per endpoint per DELETE statement (a retention or purge batch, a cascade), in
-- the same append-only table as the other counter events (no shared row: deleters never wait on each other).
CREATE OR REPLACE FUNCTION inbox_count_deleted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count)
  SELECT endpoint_id, organization_id, 'removed', 0, count(*) FROM deleted GROUP BY 1, 2;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER deliveries_count_deleted AFTER DELETE ON deliveries REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION inbox_count_deleted_deliveries();--> statement-breakpoint
-- What went before this migration (retention since 0014): as many removed as make received − removed each
-- endpoint's count now. Creating the trigger above holds off writes to deliveries until this commits, so the
-- count is exact; it reads the table once (seconds at ten million rows: ingest waits that long, once).
INSERT INTO delivery_counters (endpoint_id, organization_id, event, attempts, count)
SELECT coalesce(r.endpoint_id, held.endpoint_id), coalesce(r.organization_id, held.organization_id), 'removed', 0,
  coalesce(r.received, 0) - coalesce(held.count, 0)
FROM (
  SELECT endpoint_id, organization_id, sum(count) AS received FROM (
    SELECT endpoint_id, organization_id, count FROM delivery_counters WHERE event = 'received'
    UNION ALL
    SELECT endpoint_id, organization_id, count FROM delivery_counter_events WHERE event = 'received'
  ) counted GROUP BY 1, 2
) r
FULL JOIN (SELECT endpoint_id, organization_id, count(*) FROM deliveries GROUP BY 1, 2) held ON held.endpoint_id = r.endpoint_id
WHERE coalesce(r.received, 0) <> coalesce(held.count, 0)
  AND EXISTS (SELECT 1 FROM endpoints e WHERE e.id = coalesce(r.endpoint_id, held.endpoint_id));
