-- Rate limits (#43): each destination's token bucket, kept by the claim under the destination's slot lock.
-- Two nullable columns: no rewrite, no lock held beyond the moment of the change.
ALTER TABLE "destinations" ADD COLUMN "rate_tokens" double precision;--> statement-breakpoint
ALTER TABLE "destinations" ADD COLUMN "rate_refilled_at" timestamp with time zone;