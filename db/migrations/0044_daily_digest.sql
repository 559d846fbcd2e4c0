-- The daily digest (#45): an organization may ask for one mail a day at hour digest_hour_utc (UTC) to
-- digest_recipients (null: its owners). digest_sends holds a row per organization and UTC day, inserted in the
-- transaction that queues the day's mail: its key makes the mail go out once a day whatever the workers or restarts.
ALTER TABLE "organizations" ADD COLUMN "digest_hour_utc" smallint;--> statement-breakpoint
ALTER TABLE "organizations" ADD COLUMN "digest_recipients" text[];--> statement-breakpoint
ALTER TABLE "organizations" ADD CONSTRAINT "organizations_digest_hour_utc_range" CHECK ("organizations"."digest_hour_utc" between 0 and 23);--> statement-breakpoint
CREATE INDEX "organizations_digest_hour_utc_index" ON "organizations" USING btree ("digest_hour_utc") WHERE "organizations"."digest_hour_utc" is not null;--> statement-breakpoint
CREATE TABLE "digest_sends" (
	"organization_id" text NOT NULL,
	"day" date NOT NULL,
	"mail_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "digest_sends_organization_id_day_pk" PRIMARY KEY("organization_id","day")
);--> statement-breakpoint
ALTER TABLE "digest_sends" ADD CONSTRAINT "digest_sends_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;
