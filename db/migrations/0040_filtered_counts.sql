-- The overview's filtered figure (#43): a request stored 'filtered' (no destination's filter took it) writes a
-- 'filtered' counter event at its receipt minute, which the roll-up keeps by minute for 25 hours as it keeps
-- 'received' (lib/metrics/roll-up-delivery-counters.ts); a replay that routes it takes it back. Filtered rows stay
-- out of 'received' and of every other count (0037).
CREATE OR REPLACE FUNCTION inbox_count_inserted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count, at, received_minute)
  SELECT endpoint_id, organization_id, 'received', 0, count(*), date_trunc('minute', received_at), date_trunc('minute', received_at)
  FROM inserted WHERE status <> 'filtered' GROUP BY 1, 2, 6
  UNION ALL
  SELECT endpoint_id, organization_id, 'filtered', 0, count(*), date_trunc('minute', received_at), null
  FROM inserted WHERE status = 'filtered' GROUP BY 1, 2, 6
  UNION ALL
  SELECT endpoint_id, organization_id, status, attempt_count, count(*), now(), date_trunc('minute', received_at) FROM inserted
  WHERE status IN ('delivered', 'dead') GROUP BY 1, 2, 3, 4, 7
  UNION ALL
  SELECT endpoint_id, organization_id, 'retrying', 0, count(*), now(), date_trunc('minute', received_at) FROM inserted
  WHERE status = 'pending' AND auto_attempt_count > 0 GROUP BY 1, 2, 7;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_routed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count, at, received_minute)
  VALUES (NEW.endpoint_id, NEW.organization_id, 'received', 0, 1, date_trunc('minute', NEW.received_at), date_trunc('minute', NEW.received_at)),
         (NEW.endpoint_id, NEW.organization_id, 'filtered', 0, -1, date_trunc('minute', NEW.received_at), null);
  RETURN NULL;
END
$$;
