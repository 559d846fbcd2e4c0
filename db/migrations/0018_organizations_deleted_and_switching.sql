-- Issue #15 points 3 and 4: several organizations per user, and deleting one.
-- A session may have no organization: its user's last one was deleted; they see only "create one".
ALTER TABLE "sessions" ALTER COLUMN "organization_id" DROP NOT NULL;--> statement-breakpoint
-- Sign-in opens the organization the member used last (set at sign-in and on a switch).
ALTER TABLE "memberships" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
-- Set by the owner's delete; the data goes in the background (jobs/delete-organization.ts), the row last.
ALTER TABLE "organizations" ADD COLUMN "deleted_at" timestamp with time zone;
