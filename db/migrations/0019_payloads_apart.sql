-- Issue #13: the immutable payload (headers, body) leaves the hot, mutable delivery row. Every state change
-- (claim, finish, park, wake, replay, bury) wrote a new version of the whole row, headers and inline body
-- included; the body's trigram index took its entry when the worker settled the delivery. Now the payload is
-- written once, by ingest's statement, beside its delivery, and never updated.
CREATE TABLE "delivery_payloads" (
	"delivery_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"headers" jsonb NOT NULL,
	"body" "bytea" NOT NULL
);
--> statement-breakpoint
-- No delivery may be written between the copy and the drop of the columns below (its payload would be lost):
-- ingest and the worker wait for this migration. It takes as long as copying every stored payload.
LOCK TABLE "deliveries" IN ACCESS EXCLUSIVE MODE;--> statement-breakpoint
INSERT INTO "delivery_payloads" ("delivery_id", "organization_id", "headers", "body")
  SELECT "id", "organization_id", "headers", "body" FROM "deliveries";--> statement-breakpoint
-- Checked in one pass over the copied rows, not row by row as they went in.
ALTER TABLE "delivery_payloads" ADD CONSTRAINT "delivery_payloads_delivery_id_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "public"."deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Dropping body drops deliveries_body_trgm_idx with it (migration 0004; its search moves to
-- delivery_payloads_body_trgm_idx, built online after this migration: db/online-indexes.ts). A dropped
-- column's bytes stay in the rows already written, until they are next updated or deleted (retention).
ALTER TABLE "deliveries" DROP COLUMN "headers";--> statement-breakpoint
ALTER TABLE "deliveries" DROP COLUMN "body";
