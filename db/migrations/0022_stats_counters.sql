-- An endpoint's stats counted its deliveries: all it holds (the biggest endpoint of the 10M bench: 3 million
-- index entries, 487 ms), its backlog and its dead. They now read the counters: held = received − removed,
-- delivered and dead = those that became so less those that no longer are; what is open is the rest. These
-- triggers record what the counters lacked, in the same append-only table as the other counter events (no
-- shared row: writers never wait on each other):
--   a DELETE statement (a retention or purge batch, a cascade): its rows per endpoint, and its delivered and
--   dead ones;
--   a delivery leaving delivered or dead (a replay, a bury of a delivered one): a row of its own; the WHEN
--   clause is checked before anything is queued, so the worker's claims and finishes pay nothing.
CREATE OR REPLACE FUNCTION inbox_count_deleted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count)
  SELECT endpoint_id, organization_id, 'removed', 0, count(*) FROM deleted GROUP BY 1, 2
  UNION ALL
  SELECT endpoint_id, organization_id, 'no_longer_' || status, 0, count(*) FROM deleted
  WHERE status IN ('delivered', 'dead') GROUP BY 1, 2, status;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER deliveries_count_deleted AFTER DELETE ON deliveries REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION inbox_count_deleted_deliveries();--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_settled_left() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count)
  VALUES (OLD.endpoint_id, OLD.organization_id, 'no_longer_' || OLD.status, 0, 1);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER deliveries_count_settled_left AFTER UPDATE OF status ON deliveries FOR EACH ROW
  WHEN (OLD.status IN ('delivered', 'dead') AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION inbox_count_settled_left();--> statement-breakpoint
-- What went before this migration (retention since 0014, replays since 0004): as many removed, no longer
-- delivered and no longer dead as make the counters tell each endpoint's deliveries as they are now. Creating
-- the triggers above holds off writes to deliveries until this commits, so the count is exact; it reads the
-- table once (seconds at ten million rows: ingest waits that long, once).
INSERT INTO delivery_counters (endpoint_id, organization_id, event, attempts, count)
SELECT coalesce(c.endpoint_id, held.endpoint_id), coalesce(c.organization_id, held.organization_id), gap.event, 0, gap.count
FROM (
  SELECT endpoint_id, organization_id,
    sum(count) FILTER (WHERE event = 'received') AS received,
    sum(count) FILTER (WHERE event = 'delivered') AS delivered,
    sum(count) FILTER (WHERE event = 'dead') AS dead
  FROM (
    SELECT endpoint_id, organization_id, event, count FROM delivery_counters
    UNION ALL
    SELECT endpoint_id, organization_id, event, count FROM delivery_counter_events
  ) counted GROUP BY 1, 2
) c
FULL JOIN (
  SELECT endpoint_id, organization_id, count(*) AS total,
    count(*) FILTER (WHERE status = 'delivered') AS delivered, count(*) FILTER (WHERE status = 'dead') AS dead
  FROM deliveries GROUP BY 1, 2
) held ON held.endpoint_id = c.endpoint_id
CROSS JOIN LATERAL (VALUES
  ('removed', coalesce(c.received, 0) - coalesce(held.total, 0)),
  ('no_longer_delivered', coalesce(c.delivered, 0) - coalesce(held.delivered, 0)),
  ('no_longer_dead', coalesce(c.dead, 0) - coalesce(held.dead, 0))
) AS gap(event, count)
WHERE gap.count <> 0
  AND EXISTS (SELECT 1 FROM endpoints e WHERE e.id = coalesce(c.endpoint_id, held.endpoint_id));
