-- Issue #41: a mail's secret link (invitation, alert-address confirmation) reaches only its recipient. The
-- bodies keep a placeholder and the link waits in secret_link until the mail is settled; the mailbox shows such
-- mails, link removed, only to their recipient. Keys and invitations remember on whose authority they were made.
ALTER TABLE "mails" ADD COLUMN "secret_link" text;--> statement-breakpoint
ALTER TABLE "mails" ADD COLUMN "carries_secret" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "invitations" ADD COLUMN "invited_by_api_key_id" text;--> statement-breakpoint
ALTER TABLE "invitations" ADD CONSTRAINT "invitations_invited_by_api_key_id_api_keys_id_fk" FOREIGN KEY ("invited_by_api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
-- Mails already stored: their links are removed from the bodies (the mails were sent or logged long ago, or are
-- re-sent by their job with the link removed; an invitation can be sent anew). Mails are few: one statement.
UPDATE "mails" SET
  "carries_secret" = true,
  "text_body" = regexp_replace("text_body", '\S*/(invite|confirm-alert-email)/[A-Za-z0-9_-]+', '[link removed: it reaches only the recipient]', 'g'),
  "html_body" = regexp_replace("html_body", '[^"\s]*/(invite|confirm-alert-email)/[A-Za-z0-9_-]+', '#link-removed', 'g')
WHERE "text_body" ~ '/(invite|confirm-alert-email)/[A-Za-z0-9_-]{20,}';
