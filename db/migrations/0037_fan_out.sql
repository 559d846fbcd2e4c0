-- Fan-out (#43): a stored request is one delivery row per destination it goes to, all sharing the request's
-- payload and dedupe key (keyed by the request's id: lib/ids.ts deliveryRowId), or one row of status `filtered`
-- when no destination's filter matched it.
--
-- A deleted row's payload and dedupe key now go only with the request's last row: the rows of a request are its
-- id and its id followed by ':' (one range of the primary key, in the request's week). Its attempts go with it
-- as before (they are the row's own).
CREATE OR REPLACE FUNCTION inbox_delete_delivery_dependents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM attempts a USING deleted d WHERE a.delivery_id = d.id;
  WITH gone AS (
    SELECT DISTINCT split_part(d.id, ':', 1) AS id, d.endpoint_id, d.external_id FROM deleted d
    WHERE NOT EXISTS (SELECT 1 FROM deliveries x
      WHERE x.id >= split_part(d.id, ':', 1) AND x.id < split_part(d.id, ':', 1) || ';'
        AND (x.id = split_part(d.id, ':', 1) OR left(x.id, length(split_part(d.id, ':', 1)) + 1) = split_part(d.id, ':', 1) || ':'))
  ), payloads AS (
    DELETE FROM delivery_payloads p USING gone g WHERE p.delivery_id = g.id
  )
  DELETE FROM delivery_keys k USING gone g
  WHERE k.endpoint_id = g.endpoint_id AND k.external_id = g.external_id AND k.delivery_id = g.id;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- As 0029 set it: nested loops that probe each deleted row's own week, never a hash join over every payload.
ALTER FUNCTION inbox_delete_delivery_dependents() SET enable_hashjoin = off SET enable_mergejoin = off;--> statement-breakpoint
-- A `filtered` row is stored, listed and searchable, but it is no delivery to any destination: the counters
-- (stats, overview, metrics) leave it out, on its insert and on its removal. A replay that matches it again makes
-- it its first destination's row: received then (inbox_count_routed), as ingest would have counted it.
CREATE OR REPLACE FUNCTION inbox_count_inserted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count, at, received_minute)
  SELECT endpoint_id, organization_id, 'received', 0, count(*), date_trunc('minute', received_at), date_trunc('minute', received_at)
  FROM inserted WHERE status <> 'filtered' GROUP BY 1, 2, 6
  UNION ALL
  SELECT endpoint_id, organization_id, status, attempt_count, count(*), now(), date_trunc('minute', received_at) FROM inserted
  WHERE status IN ('delivered', 'dead') GROUP BY 1, 2, 3, 4, 7
  UNION ALL
  SELECT endpoint_id, organization_id, 'retrying', 0, count(*), now(), date_trunc('minute', received_at) FROM inserted
  WHERE status = 'pending' AND auto_attempt_count > 0 GROUP BY 1, 2, 7;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_deleted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count)
  SELECT endpoint_id, organization_id, 'removed', 0, count(*) FROM deleted WHERE status <> 'filtered' GROUP BY 1, 2
  UNION ALL
  SELECT endpoint_id, organization_id, 'no_longer_' || status, 0, count(*) FROM deleted
  WHERE status IN ('delivered', 'dead') GROUP BY 1, 2, status;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE FUNCTION inbox_count_routed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count, at, received_minute)
  VALUES (NEW.endpoint_id, NEW.organization_id, 'received', 0, 1, date_trunc('minute', NEW.received_at), date_trunc('minute', NEW.received_at));
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER deliveries_count_routed AFTER UPDATE OF status ON deliveries FOR EACH ROW
  WHEN (OLD.status = 'filtered' AND NEW.status <> 'filtered')
  EXECUTE FUNCTION inbox_count_routed();
