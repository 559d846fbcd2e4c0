-- The overview counted each endpoint's receipts of the last 24 hours from its deliveries: an index entry per
-- delivery, ~115 ms at bench/dashboard's 10M and growing with the traffic (an endpoint taking 100 a second:
-- 8.6 million entries a call). It now reads the per-minute received counts, kept 25 hours instead of 2
-- (lib/metrics/roll-up-delivery-counters.ts), so it needs each receipt in the minute of its received_at: the
-- ingest trigger now records a received event at that minute. Ingest's statement gives every row one
-- received_at (its transaction's now()), so it still writes one event row per endpoint; a statement inserting
-- older receipts (a test, a seed) writes one per endpoint and minute.
CREATE OR REPLACE FUNCTION inbox_count_inserted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, event, attempts, count, at)
  SELECT endpoint_id, organization_id, 'received', 0, count(*), date_trunc('minute', received_at) FROM inserted GROUP BY 1, 2, 6
  UNION ALL
  SELECT endpoint_id, organization_id, status, attempt_count, count(*), now() FROM inserted
  WHERE status IN ('delivered', 'dead') GROUP BY 1, 2, 3, 4;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- The minutes the roll-up no longer kept (before 2 hours ago), back to 25 hours ago, counted from the
-- deliveries. Received events of those minutes not folded yet (a worker stopped for hours) go to the totals
-- only (at '-infinity', as 0023 did), so that they are not counted twice; the minutes from the cutoff on are the
-- events', as before. One now() for both statements: the migration's transaction's.
UPDATE delivery_counter_events SET at = '-infinity'
WHERE event = 'received' AND at < date_trunc('minute', now()) - interval '110 minutes';--> statement-breakpoint
INSERT INTO delivery_counts_by_minute (endpoint_id, event, minute, count)
SELECT e.id, 'received', r.minute, r.count FROM endpoints e CROSS JOIN LATERAL (
  SELECT date_trunc('minute', d.received_at) AS minute, count(*) AS count FROM deliveries d
  WHERE d.endpoint_id = e.id AND d.received_at >= now() - interval '25 hours'
    AND d.received_at < date_trunc('minute', now()) - interval '110 minutes' GROUP BY 1) r
ORDER BY 1, 3
ON CONFLICT (endpoint_id, event, minute) DO UPDATE SET count = excluded.count;
