CREATE TABLE "org_waiting_endpoints" (
	"organization_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"since" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "org_waiting_endpoints_organization_id_endpoint_id_pk" PRIMARY KEY("organization_id","endpoint_id")
);
--> statement-breakpoint
ALTER TABLE "org_waiting_endpoints" ADD CONSTRAINT "org_waiting_endpoints_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- An attempt may take at most 30 s now (lib/endpoints/endpoint-input.ts).
UPDATE "endpoints" SET "timeout_ms" = 30000 WHERE "timeout_ms" > 30000;
