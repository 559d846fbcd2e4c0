-- Destinations (#43): an endpoint hands what it stores to its destinations, and the delivery engine's lanes
-- (caps, slots, pause, retries, the parked line) are destinations instead of endpoints. Every endpoint gets its
-- default destination, holding what were the endpoint's own destination settings; its id is `dst_` and the
-- endpoint id's 25 digits (lib/destinations/destination-ids.ts), so every existing delivery, slot and parked
-- row gets its destination by rewriting its endpoint id, with no look-up. What this costs an upgrade:
-- docs/upgrading.md.
CREATE TABLE "destinations" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"name" text NOT NULL,
	"type" text DEFAULT 'http' NOT NULL,
	"url" text,
	"is_default" boolean DEFAULT false NOT NULL,
	"filter" jsonb,
	"rate_per_second" double precision,
	"rate_burst" integer,
	"ordering_key" text,
	"paused" boolean DEFAULT false NOT NULL,
	"max_attempts" integer DEFAULT 8 NOT NULL,
	"retry_base_seconds" integer DEFAULT 5 NOT NULL,
	"timeout_ms" integer DEFAULT 15000 NOT NULL,
	"outbound_secret_encrypted" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"deleted_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "destinations" ADD CONSTRAINT "destinations_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "destinations" ADD CONSTRAINT "destinations_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Taken first, as the drops below would take it: no endpoint changes between its destination's copy and the drop.
LOCK TABLE "endpoints" IN ACCESS EXCLUSIVE MODE;--> statement-breakpoint
INSERT INTO "destinations" ("id", "organization_id", "endpoint_id", "name", "type", "url", "is_default", "paused", "max_attempts",
  "retry_base_seconds", "timeout_ms", "outbound_secret_encrypted", "created_at", "updated_at")
SELECT 'dst_' || substr(e.id, 4), e.organization_id, e.id, 'Default', 'http', e.destination_url, true, e.paused, e.max_attempts,
  e.retry_base_seconds, e.timeout_ms, e.outbound_secret_encrypted, e.created_at, e.updated_at
FROM "endpoints" e;--> statement-breakpoint
CREATE INDEX "destinations_endpoint_id_created_at_index" ON "destinations" USING btree ("endpoint_id","created_at");--> statement-breakpoint
CREATE INDEX "destinations_organization_id_index" ON "destinations" USING btree ("organization_id");--> statement-breakpoint
CREATE UNIQUE INDEX "destinations_one_default_idx" ON "destinations" USING btree ("endpoint_id") WHERE is_default;--> statement-breakpoint
ALTER TABLE "endpoints" DROP COLUMN "outbound_secret_encrypted";--> statement-breakpoint
ALTER TABLE "endpoints" DROP COLUMN "destination_url";--> statement-breakpoint
ALTER TABLE "endpoints" DROP COLUMN "paused";--> statement-breakpoint
ALTER TABLE "endpoints" DROP COLUMN "max_attempts";--> statement-breakpoint
ALTER TABLE "endpoints" DROP COLUMN "retry_base_seconds";--> statement-breakpoint
ALTER TABLE "endpoints" DROP COLUMN "timeout_ms";--> statement-breakpoint

-- Each delivery's destination: its endpoint's default one. One pass over every row (every partition); no trigger
-- fires (none watches this column) and no index holds it yet.
ALTER TABLE "deliveries" ADD COLUMN "destination_id" text;--> statement-breakpoint
UPDATE "deliveries" SET "destination_id" = 'dst_' || substr("endpoint_id", 4);--> statement-breakpoint
ALTER TABLE "deliveries" ALTER COLUMN "destination_id" SET NOT NULL;--> statement-breakpoint

-- The slots, the organization's waiting line and the parked mirror, by destination.
ALTER TABLE "endpoint_slots" RENAME TO "destination_slots";--> statement-breakpoint
ALTER TABLE "destination_slots" RENAME COLUMN "endpoint_id" TO "destination_id";--> statement-breakpoint
ALTER TABLE "destination_slots" DROP CONSTRAINT "endpoint_slots_endpoint_id_endpoints_id_fk";--> statement-breakpoint
ALTER TABLE "destination_slots" RENAME CONSTRAINT "endpoint_slots_organization_id_organizations_id_fk" TO "destination_slots_organization_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "destination_slots" RENAME CONSTRAINT "endpoint_slots_endpoint_id_shard_pk" TO "destination_slots_destination_id_shard_pk";--> statement-breakpoint
UPDATE "destination_slots" SET "destination_id" = 'dst_' || substr("destination_id", 4);--> statement-breakpoint
ALTER TABLE "destination_slots" ADD CONSTRAINT "destination_slots_destination_id_destinations_id_fk" FOREIGN KEY ("destination_id") REFERENCES "public"."destinations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "org_waiting_endpoints" RENAME TO "org_waiting_destinations";--> statement-breakpoint
ALTER TABLE "org_waiting_destinations" RENAME COLUMN "endpoint_id" TO "destination_id";--> statement-breakpoint
ALTER TABLE "org_waiting_destinations" RENAME CONSTRAINT "org_waiting_endpoints_organization_id_organizations_id_fk" TO "org_waiting_destinations_organization_id_organizations_id_fk";--> statement-breakpoint
ALTER TABLE "org_waiting_destinations" RENAME CONSTRAINT "org_waiting_endpoints_organization_id_endpoint_id_pk" TO "org_waiting_destinations_organization_id_destination_id_pk";--> statement-breakpoint
UPDATE "org_waiting_destinations" SET "destination_id" = 'dst_' || substr("destination_id", 4);--> statement-breakpoint
ALTER TABLE "parked_deliveries" RENAME COLUMN "endpoint_id" TO "destination_id";--> statement-breakpoint
ALTER TABLE "parked_deliveries" RENAME CONSTRAINT "parked_deliveries_endpoint_id_delivery_id_pk" TO "parked_deliveries_destination_id_delivery_id_pk";--> statement-breakpoint
UPDATE "parked_deliveries" SET "destination_id" = 'dst_' || substr("destination_id", 4);--> statement-breakpoint
CREATE OR REPLACE FUNCTION inbox_mirror_parked_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM parked_deliveries WHERE destination_id = OLD.destination_id AND delivery_id = OLD.id;
  ELSIF NEW.parked_at IS NULL THEN
    DELETE FROM parked_deliveries WHERE destination_id = NEW.destination_id AND delivery_id = NEW.id;
  ELSE
    INSERT INTO parked_deliveries (destination_id, delivery_id) VALUES (NEW.destination_id, NEW.id) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
-- deliveries_destination_parked_idx and deliveries_destination_in_flight_idx, which take over from
-- deliveries_endpoint_parked_idx and deliveries_endpoint_in_flight_idx, are built online after this migration
-- (db/online-indexes.ts); the old ones are dropped once the new are valid.
