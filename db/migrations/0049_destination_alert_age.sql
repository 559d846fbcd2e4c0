-- A destination's own pending-age alert (#43: "each destination has its own alert age"): null, its endpoint's
-- alertPendingAgeSeconds covers it, as before. A nullable column with no default: no rewrite.
ALTER TABLE "destinations" ADD COLUMN "alert_pending_age_seconds" integer;
