-- The overview counted each endpoint's open, retrying and dead deliveries of the last 24 hours from their rows:
-- an index entry and a row per open delivery, so an endpoint whose destination was down all day made its
-- organization's overview read the whole day (1,000,000 pending: 850-980 ms a call), just when it is looked at.
-- It now reads per-minute counts of them by receipt minute, kept 25 hours as the received counts are (0032).
-- The triggers give each receipt and change of state the minute its delivery was received; the roll-up
-- (lib/metrics/roll-up-delivery-counters.ts) sums them by it, through inbox_receipt_count.
ALTER TABLE "delivery_counter_events" ADD COLUMN "received_minute" timestamp with time zone;--> statement-breakpoint
-- A delivery became, or stopped being, pending after a failed attempt of its series (the overview's retrying):
-- the worker's failure, its next claim, a replay, a bury. Created first: it takes the lock that holds writes to
-- deliveries until this migration commits, so that the counts seeded below are exact.
CREATE FUNCTION inbox_count_retrying() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count, received_minute)
  VALUES (NEW.endpoint_id, NEW.organization_id, 'retrying', 0,
    CASE WHEN NEW.status = 'pending' AND NEW.auto_attempt_count > 0 THEN 1 ELSE -1 END, date_trunc('minute', NEW.received_at));
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER deliveries_count_retrying AFTER UPDATE OF status, auto_attempt_count ON deliveries FOR EACH ROW
  WHEN ((OLD.status = 'pending' AND OLD.auto_attempt_count > 0) IS DISTINCT FROM (NEW.status = 'pending' AND NEW.auto_attempt_count > 0))
  EXECUTE FUNCTION inbox_count_retrying();--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_inserted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count, at, received_minute)
  SELECT endpoint_id, organization_id, 'received', 0, count(*), date_trunc('minute', received_at), date_trunc('minute', received_at)
  FROM inserted GROUP BY 1, 2, 6
  UNION ALL
  SELECT endpoint_id, organization_id, status, attempt_count, count(*), now(), date_trunc('minute', received_at) FROM inserted
  WHERE status IN ('delivered', 'dead') GROUP BY 1, 2, 3, 4, 7
  UNION ALL
  SELECT endpoint_id, organization_id, 'retrying', 0, count(*), now(), date_trunc('minute', received_at) FROM inserted
  WHERE status = 'pending' AND auto_attempt_count > 0 GROUP BY 1, 2, 7;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_delivery_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count, received_minute)
  VALUES (NEW.endpoint_id, NEW.organization_id, NEW.status, NEW.attempt_count, 1, date_trunc('minute', NEW.received_at));
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_settled_left() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count, received_minute)
  VALUES (OLD.endpoint_id, OLD.organization_id, 'no_longer_' || OLD.status, 0, 1, date_trunc('minute', OLD.received_at));
  RETURN NULL;
END
$$;--> statement-breakpoint
-- What an event counts by its deliveries' receipt minute, signed: the one mapping for the roll-up and for the
-- overview's reading of the events not folded yet. Open is counted, not delivered: a healthy endpoint's minutes
-- net to no open delivery, and the roll-up keeps no row of 0, so the overview reads its received counts alone;
-- delivered is what is left. A deletion's events carry no receipt minute: a delivery removed counts as it last
-- stood (only a deleted endpoint's go within a day of their receipt).
CREATE FUNCTION inbox_receipt_count(event text, count integer) RETURNS TABLE (counted text, n integer)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT v.counted, v.sign * count FROM (VALUES
    ('received', 'open_by_receipt', 1),
    ('delivered', 'open_by_receipt', -1), ('no_longer_delivered', 'open_by_receipt', 1),
    ('dead', 'open_by_receipt', -1), ('dead', 'dead_by_receipt', 1),
    ('no_longer_dead', 'open_by_receipt', 1), ('no_longer_dead', 'dead_by_receipt', -1),
    ('retrying', 'retrying_by_receipt', 1)) v(event, counted, sign)
  WHERE v.event = inbox_receipt_count.event
$$;--> statement-breakpoint
-- The last 25 hours' receipts as they stand, counted once from the deliveries (an entry and a row each, per
-- endpoint: 2.7-2.8 s for a million, warm, while ingest waits). The events written before this migration carry
-- no receipt minute, so nothing is counted twice.
INSERT INTO delivery_counts_by_minute (endpoint_id, event, minute, count)
SELECT e.id, r.counted, r.minute, r.count FROM endpoints e CROSS JOIN LATERAL (
  SELECT s.counted, date_trunc('minute', d.received_at) AS minute, count(*) AS count FROM deliveries d
  CROSS JOIN LATERAL (VALUES
    (CASE WHEN d.status IN ('pending', 'delivering') THEN 'open_by_receipt' WHEN d.status = 'dead' THEN 'dead_by_receipt' END),
    (CASE WHEN d.status = 'pending' AND d.auto_attempt_count > 0 THEN 'retrying_by_receipt' END)) s(counted)
  WHERE d.endpoint_id = e.id AND d.received_at >= date_trunc('minute', now()) - interval '25 hours' AND s.counted IS NOT NULL
  GROUP BY 1, 2) r
ORDER BY 1, 2, 3
ON CONFLICT (endpoint_id, event, minute) DO UPDATE SET count = excluded.count;
