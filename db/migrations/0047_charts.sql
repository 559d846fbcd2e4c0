-- Charts (#47): received, delivered, failed and delivery latency per endpoint over 1 h, 24 h, 7 d or 30 d, from
-- counts, never by counting deliveries at read time (lib/endpoints/get-traffic-series.ts).
-- Latency: when a delivery becomes delivered, a 'latency_ms' counter event whose count is the milliseconds it
-- waited since its receipt or latest replay (pending_since), at the minute it was delivered; the roll-up sums them
-- per minute and hour beside the 'delivered' events of the same minutes (the average is their quotient). One
-- delivery's wait is capped at an integer's range (24.8 days); the minute's and hour's sums are bigint.
ALTER TABLE "delivery_counts_by_minute" ALTER COLUMN "count" TYPE bigint;--> statement-breakpoint
-- The per-minute counts summed per hour and kept 31 days for the 7 and 30 day charts, folded by the same roll-up
-- statement (lib/metrics/roll-up-delivery-counters.ts).
CREATE TABLE "delivery_counts_by_hour" (
	"endpoint_id" text NOT NULL,
	"destination_id" text NOT NULL,
	"event" text NOT NULL,
	"hour" timestamp with time zone NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "delivery_counts_by_hour_destination_id_event_hour_pk" PRIMARY KEY("destination_id","event","hour")
);--> statement-breakpoint
ALTER TABLE "delivery_counts_by_hour" ADD CONSTRAINT "delivery_counts_by_hour_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "delivery_counts_by_hour_endpoint_idx" ON "delivery_counts_by_hour" USING btree ("endpoint_id","event","hour");--> statement-breakpoint
-- As migration 0046's, with the latency of a delivery that became delivered.
CREATE OR REPLACE FUNCTION inbox_count_delivery_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count, received_minute)
  VALUES (NEW.endpoint_id, NEW.organization_id, NEW.destination_id, NEW.status, NEW.attempt_count, 1, date_trunc('minute', NEW.received_at));
  IF NEW.status = 'dead' AND NEW.dead_reason = 'buried' THEN
    INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count, received_minute)
    VALUES (NEW.endpoint_id, NEW.organization_id, NEW.destination_id, 'buried', 0, 1, date_trunc('minute', NEW.received_at));
  END IF;
  IF NEW.status = 'delivered' THEN
    INSERT INTO delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count)
    VALUES (NEW.endpoint_id, NEW.organization_id, NEW.destination_id, 'latency_ms', 0,
      least(2147483647, greatest(0, floor(extract(epoch from coalesce(NEW.delivered_at, now()) - NEW.pending_since) * 1000)))::integer);
  END IF;
  RETURN NULL;
END
$$;--> statement-breakpoint
-- The last 25 hours as hours, so the week's and month's charts hold at once what the overview does.
LOCK TABLE "delivery_counts_by_minute" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
INSERT INTO "delivery_counts_by_hour" (endpoint_id, destination_id, event, hour, count)
SELECT endpoint_id, destination_id, event, date_trunc('hour', minute), sum(count) FROM "delivery_counts_by_minute"
GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
-- An attempt shows the exact request sent (#47): the headers the worker set on it (x-inbox-*, webhook-*: never a
-- secret; the rest are the stored request's, and the body is the stored body), and the answer's headers, the
-- first 8 KiB. Null on attempts made before this migration and on those that sent nothing.
ALTER TABLE "attempts" ADD COLUMN "request_headers" jsonb;--> statement-breakpoint
ALTER TABLE "attempts" ADD COLUMN "response_headers" jsonb;
