CREATE TABLE "parked_deliveries" (
	"endpoint_id" text NOT NULL,
	"delivery_id" text NOT NULL,
	CONSTRAINT "parked_deliveries_endpoint_id_delivery_id_pk" PRIMARY KEY("endpoint_id","delivery_id")
);
--> statement-breakpoint

-- parked_deliveries follows deliveries.parked_at (db/schema/deliveries.ts says why). Row triggers with a WHEN,
-- so a row whose parked-or-not does not change costs no call (claims and finishes set parked_at = null on
-- rows never parked; retention deletes settled rows, never parked). Each delivery's row in the mirror is
-- written only by a transaction holding that delivery's row lock, so the mirror adds no lock order.
CREATE FUNCTION inbox_mirror_parked_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM parked_deliveries WHERE endpoint_id = OLD.endpoint_id AND delivery_id = OLD.id;
  ELSIF NEW.parked_at IS NULL THEN
    DELETE FROM parked_deliveries WHERE endpoint_id = NEW.endpoint_id AND delivery_id = NEW.id;
  ELSE
    INSERT INTO parked_deliveries (endpoint_id, delivery_id) VALUES (NEW.endpoint_id, NEW.id) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER deliveries_parked_inserted AFTER INSERT ON deliveries FOR EACH ROW
  WHEN (NEW.parked_at IS NOT NULL)
  EXECUTE FUNCTION inbox_mirror_parked_delivery();--> statement-breakpoint
CREATE TRIGGER deliveries_parked_changed AFTER UPDATE OF parked_at ON deliveries FOR EACH ROW
  WHEN ((OLD.parked_at IS NULL) <> (NEW.parked_at IS NULL))
  EXECUTE FUNCTION inbox_mirror_parked_delivery();--> statement-breakpoint
CREATE TRIGGER deliveries_parked_deleted AFTER DELETE ON deliveries FOR EACH ROW
  WHEN (OLD.parked_at IS NOT NULL)
  EXECUTE FUNCTION inbox_mirror_parked_delivery();--> statement-breakpoint

-- The deliveries parked before this migration. The triggers above took deliveries' SHARE ROW EXCLUSIVE
-- lock, so no write slips between this copy and the triggers.
INSERT INTO parked_deliveries (endpoint_id, delivery_id) SELECT endpoint_id, id FROM deliveries WHERE parked_at IS NOT NULL;
