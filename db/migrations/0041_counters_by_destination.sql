-- Counters per destination (#43): stats, the oldest pending age and /api/metrics per destination as well as per
-- endpoint. Every counter event, counter and per-minute count now names its destination; an endpoint's figures
-- are the sums over its destinations (the view endpoint_delivery_counts is unchanged: it groups by endpoint).
--
-- Writes to deliveries wait until this commits, so the corrections below are exact.
LOCK TABLE "deliveries" IN SHARE MODE;--> statement-breakpoint
ALTER TABLE "delivery_counter_events" ADD COLUMN "destination_id" text;--> statement-breakpoint
ALTER TABLE "delivery_counters" ADD COLUMN "destination_id" text;--> statement-breakpoint
ALTER TABLE "delivery_counts_by_minute" ADD COLUMN "destination_id" text;--> statement-breakpoint
-- Until now every count was its endpoint's; give it to the endpoint's default destination (lib/destinations/destination-ids.ts).
UPDATE "delivery_counter_events" SET "destination_id" = 'dst_' || substr("endpoint_id", 4);--> statement-breakpoint
UPDATE "delivery_counters" SET "destination_id" = 'dst_' || substr("endpoint_id", 4);--> statement-breakpoint
UPDATE "delivery_counts_by_minute" SET "destination_id" = 'dst_' || substr("endpoint_id", 4);--> statement-breakpoint
-- Endpoints with other destinations (made since 0036): what those destinations hold now, as they stand, moves from
-- the default destination to them, as correction events the roll-up folds into delivery_counters only (an `at`
-- older than the per-minute counts keep and no receipt minute: the endpoint's minutes are unchanged). Their
-- delivered and dead totals start from what they hold: how often one was delivered before is not recorded.
INSERT INTO "delivery_counter_events" (endpoint_id, organization_id, destination_id, event, attempts, count, at, received_minute)
SELECT counted.endpoint_id, counted.organization_id, moved.destination_id, counted.event, counted.attempts, moved.sign * counted.n, '2000-01-01', null
FROM (
  SELECT d.endpoint_id, d.organization_id, d.destination_id, e.event, e.attempts, count(*)::int AS n
  FROM "deliveries" d
  CROSS JOIN LATERAL (VALUES ('received', 0), (d.status, d.attempt_count)) AS e(event, attempts)
  WHERE d.destination_id <> 'dst_' || substr(d.endpoint_id, 4) AND d.status <> 'filtered'
    AND e.event IN ('received', 'delivered', 'dead')
  GROUP BY 1, 2, 3, 4, 5
) counted
CROSS JOIN LATERAL (VALUES (counted.destination_id, 1), ('dst_' || substr(counted.endpoint_id, 4), -1)) AS moved(destination_id, sign)--> statement-breakpoint
ALTER TABLE "delivery_counter_events" ALTER COLUMN "destination_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "delivery_counters" ALTER COLUMN "destination_id" SET NOT NULL;--> statement-breakpoint
ALTER TABLE "delivery_counts_by_minute" ALTER COLUMN "destination_id" SET NOT NULL;--> statement-breakpoint
-- Keyed by destination; read by endpoint through the new indexes (stats, the overview, the view).
ALTER TABLE "delivery_counters" DROP CONSTRAINT "delivery_counters_endpoint_id_event_attempts_pk";--> statement-breakpoint
ALTER TABLE "delivery_counters" ADD CONSTRAINT "delivery_counters_destination_id_event_attempts_pk" PRIMARY KEY ("destination_id", "event", "attempts");--> statement-breakpoint
CREATE INDEX "delivery_counters_endpoint_idx" ON "delivery_counters" USING btree ("endpoint_id");--> statement-breakpoint
ALTER TABLE "delivery_counts_by_minute" DROP CONSTRAINT "delivery_counts_by_minute_endpoint_id_event_minute_pk";--> statement-breakpoint
ALTER TABLE "delivery_counts_by_minute" ADD CONSTRAINT "delivery_counts_by_minute_destination_id_event_minute_pk" PRIMARY KEY ("destination_id", "event", "minute");--> statement-breakpoint
CREATE INDEX "delivery_counts_by_minute_endpoint_idx" ON "delivery_counts_by_minute" USING btree ("endpoint_id", "event", "minute");--> statement-breakpoint
-- A destination's own: held, delivered and dead, as endpoint_delivery_counts is an endpoint's.
CREATE VIEW destination_delivery_counts AS
SELECT destination_id, endpoint_id,
  coalesce(sum(count) FILTER (WHERE event = 'received'), 0) - coalesce(sum(count) FILTER (WHERE event = 'removed'), 0) AS held,
  coalesce(sum(count) FILTER (WHERE event = 'delivered'), 0) - coalesce(sum(count) FILTER (WHERE event = 'no_longer_delivered'), 0) AS delivered,
  coalesce(sum(count) FILTER (WHERE event = 'dead'), 0) - coalesce(sum(count) FILTER (WHERE event = 'no_longer_dead'), 0) AS dead
FROM (
  SELECT destination_id, endpoint_id, event, count FROM delivery_counters
  UNION ALL
  SELECT destination_id, endpoint_id, event, count FROM delivery_counter_events
) counted
GROUP BY destination_id, endpoint_id;--> statement-breakpoint
-- The triggers, as 0034, 0037 and 0040 left them, each naming the destination.
CREATE OR REPLACE FUNCTION inbox_count_inserted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count, at, received_minute)
  SELECT endpoint_id, organization_id, destination_id, 'received', 0, count(*), date_trunc('minute', received_at), date_trunc('minute', received_at)
  FROM inserted WHERE status <> 'filtered' GROUP BY 1, 2, 3, 7
  UNION ALL
  SELECT endpoint_id, organization_id, destination_id, 'filtered', 0, count(*), date_trunc('minute', received_at), null
  FROM inserted WHERE status = 'filtered' GROUP BY 1, 2, 3, 7
  UNION ALL
  SELECT endpoint_id, organization_id, destination_id, status, attempt_count, count(*), now(), date_trunc('minute', received_at) FROM inserted
  WHERE status IN ('delivered', 'dead') GROUP BY 1, 2, 3, 4, 5, 8
  UNION ALL
  SELECT endpoint_id, organization_id, destination_id, 'retrying', 0, count(*), now(), date_trunc('minute', received_at) FROM inserted
  WHERE status = 'pending' AND auto_attempt_count > 0 GROUP BY 1, 2, 3, 8;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_routed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count, at, received_minute)
  VALUES (NEW.endpoint_id, NEW.organization_id, NEW.destination_id, 'received', 0, 1, date_trunc('minute', NEW.received_at), date_trunc('minute', NEW.received_at)),
         (NEW.endpoint_id, NEW.organization_id, OLD.destination_id, 'filtered', 0, -1, date_trunc('minute', NEW.received_at), null);
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_deleted_deliveries() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count)
  SELECT endpoint_id, organization_id, destination_id, 'removed', 0, count(*) FROM deleted WHERE status <> 'filtered' GROUP BY 1, 2, 3
  UNION ALL
  SELECT endpoint_id, organization_id, destination_id, 'no_longer_' || status, 0, count(*) FROM deleted
  WHERE status IN ('delivered', 'dead') GROUP BY 1, 2, 3, status;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_delivery_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count, received_minute)
  VALUES (NEW.endpoint_id, NEW.organization_id, NEW.destination_id, NEW.status, NEW.attempt_count, 1, date_trunc('minute', NEW.received_at));
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_settled_left() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count, received_minute)
  VALUES (OLD.endpoint_id, OLD.organization_id, OLD.destination_id, 'no_longer_' || OLD.status, 0, 1, date_trunc('minute', OLD.received_at));
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_count_retrying() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count, received_minute)
  VALUES (NEW.endpoint_id, NEW.organization_id, NEW.destination_id, 'retrying', 0,
    CASE WHEN NEW.status = 'pending' AND NEW.auto_attempt_count > 0 THEN 1 ELSE -1 END, date_trunc('minute', NEW.received_at));
  RETURN NULL;
END
$$;
