-- Alert channels (#45): where an organization's incidents are told (mail, Slack, a signed webhook, PagerDuty),
-- named by endpoints and destinations; every notification recorded with whether it arrived; incidents of a
-- destination (its automatic pause); and the destination's circuit breaker, counted by the attempts' finish.
CREATE TABLE "alert_channels" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL REFERENCES "organizations"("id") ON DELETE cascade,
	"name" text NOT NULL,
	"type" text NOT NULL,
	"target" text NOT NULL,
	"target_encrypted" text,
	"secret_encrypted" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "alert_channels_organization_id_created_at_id_index" ON "alert_channels" USING btree ("organization_id","created_at","id");
--> statement-breakpoint
CREATE TABLE "alert_notifications" (
	"id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL REFERENCES "organizations"("id") ON DELETE cascade,
	"incident_id" text REFERENCES "incidents"("id") ON DELETE set null,
	"channel_id" text REFERENCES "alert_channels"("id") ON DELETE set null,
	"channel_type" text NOT NULL,
	"channel_name" text NOT NULL,
	"event" text NOT NULL,
	"message" jsonb NOT NULL,
	"mail_id" text REFERENCES "mails"("id") ON DELETE set null,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "alert_notifications_once_idx" ON "alert_notifications" USING btree ("incident_id","channel_id","event") WHERE incident_id is not null and channel_id is not null and event in ('opened', 'resolved');
--> statement-breakpoint
CREATE INDEX "alert_notifications_organization_id_created_at_index" ON "alert_notifications" USING btree ("organization_id","created_at");
--> statement-breakpoint
CREATE INDEX "alert_notifications_incident_id_index" ON "alert_notifications" USING btree ("incident_id");
--> statement-breakpoint
CREATE INDEX "alert_notifications_channel_id_index" ON "alert_notifications" USING btree ("channel_id");
--> statement-breakpoint
ALTER TABLE "endpoints" ADD COLUMN "alert_channel_ids" text[];
--> statement-breakpoint
ALTER TABLE "destinations" ADD COLUMN "alert_channel_ids" text[];
--> statement-breakpoint
ALTER TABLE "destinations" ADD COLUMN "auto_pause_failures" integer;
--> statement-breakpoint
ALTER TABLE "destinations" ADD COLUMN "auto_pause_minutes" integer;
--> statement-breakpoint
ALTER TABLE "destinations" ADD COLUMN "consecutive_failures" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "destinations" ADD COLUMN "failing_since" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "destinations" ADD COLUMN "auto_paused_at" timestamp with time zone;
--> statement-breakpoint
ALTER TABLE "destinations" ADD COLUMN "last_failure_reason" text;
--> statement-breakpoint
ALTER TABLE "destinations" ADD COLUMN "dead_threshold" integer;
--> statement-breakpoint
ALTER TABLE "destinations" ADD COLUMN "dead_window_minutes" integer;
--> statement-breakpoint
ALTER TABLE "incidents" ADD COLUMN "destination_id" text;
--> statement-breakpoint
ALTER TABLE "incidents" ADD CONSTRAINT "incidents_destination_id_destinations_id_fk" FOREIGN KEY ("destination_id") REFERENCES "public"."destinations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
DROP INDEX "incidents_one_open_idx";
--> statement-breakpoint
CREATE UNIQUE INDEX "incidents_one_open_idx" ON "incidents" USING btree ("endpoint_id","kind",coalesce("destination_id", '')) WHERE resolved_at is null;
--> statement-breakpoint
CREATE INDEX "destinations_auto_paused_idx" ON "destinations" USING btree ("endpoint_id") WHERE auto_paused_at is not null;
