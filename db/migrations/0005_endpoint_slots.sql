CREATE TABLE "endpoint_slots" (
	"endpoint_id" text PRIMARY KEY NOT NULL,
	"organization_id" text NOT NULL,
	"in_flight" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
ALTER TABLE "endpoint_slots" ADD CONSTRAINT "endpoint_slots_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "public"."endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "endpoint_slots" ADD CONSTRAINT "endpoint_slots_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;