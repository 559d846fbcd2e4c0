CREATE TABLE "delivery_counter_events" (
	"endpoint_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"event" text NOT NULL,
	"attempts" integer NOT NULL,
	"count" integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE "delivery_counters" (
	"endpoint_id" text NOT NULL,
	"organization_id" text NOT NULL,
	"event" text NOT NULL,
	"attempts" integer NOT NULL,
	"count" bigint NOT NULL,
	CONSTRAINT "delivery_counters_endpoint_id_event_attempts_pk" PRIMARY KEY("endpoint_id","event","attempts")
);
--> statement-breakpoint
ALTER TABLE "delivery_counters" ADD CONSTRAINT "delivery_counters_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "delivery_counters" ADD CONSTRAINT "delivery_counters_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "deliveries_org_open_idx" ON "deliveries" USING btree ("organization_id","received_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE status in ('pending', 'delivering');--> statement-breakpoint
CREATE INDEX "deliveries_org_dead_idx" ON "deliveries" USING btree ("organization_id","received_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE status = 'dead';--> statement-breakpoint
CREATE INDEX "deliveries_org_event_type_idx" ON "deliveries" USING btree ("organization_id","event_type","received_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "deliveries_org_large_body_idx" ON "deliveries" USING btree ("organization_id","received_at" DESC NULLS LAST,"id" DESC NULLS LAST) WHERE size_bytes > 65536;--> statement-breakpoint
CREATE INDEX "deliveries_endpoint_delivered_idx" ON "deliveries" USING btree ("endpoint_id","delivered_at") WHERE delivered_at is not null;