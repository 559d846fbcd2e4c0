ALTER TABLE "deliveries" ADD COLUMN "claimed_by_job" text;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "lease_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "parked_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "deliveries_endpoint_in_flight_idx" ON "deliveries" USING btree ("endpoint_id","lease_expires_at") WHERE status = 'delivering';--> statement-breakpoint
CREATE INDEX "deliveries_endpoint_parked_idx" ON "deliveries" USING btree ("endpoint_id","received_at") WHERE parked_at is not null;