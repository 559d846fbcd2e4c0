-- The rescue sweep walks each endpoint's open deliveries a bounded stretch a minute, resuming where it stopped,
-- instead of reading every overdue one of every endpoint each minute (a cost that grew with any tenant's backlog).
CREATE TABLE "orphan_scan_cursors" (
	"endpoint_id" text PRIMARY KEY NOT NULL,
	"pending_since" timestamp with time zone NOT NULL,
	"delivery_id" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "orphan_scan_cursors" ADD CONSTRAINT "orphan_scan_cursors_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."endpoints"("id") ON DELETE cascade ON UPDATE no action;
-- Built online after this migration (db/online-indexes.ts): deliveries_endpoint_waiting_idx (endpoint_id,
-- pending_since, id) where open, after which deliveries_endpoint_pending_since_idx is dropped concurrently.
