-- Ordering (#43): each delivery's value of its destination's ordering key (a nullable column: no rewrite), and
-- open_ordered_deliveries, the open ones that have a value, which the claim and the wake probe for "is an earlier
-- one of this value still open?" instead of reading every week's partition of deliveries. Kept like
-- parked_deliveries (0028): row triggers with a WHEN, so a delivery without a value costs no call; each row is
-- written by the transaction holding its delivery's row lock.
CREATE TABLE "open_ordered_deliveries" (
	"destination_id" text NOT NULL,
	"ordering_value" text NOT NULL,
	"delivery_id" text NOT NULL,
	CONSTRAINT "open_ordered_deliveries_destination_id_ordering_value_delivery_id_pk" PRIMARY KEY("destination_id","ordering_value","delivery_id")
);
--> statement-breakpoint
ALTER TABLE "deliveries" ADD COLUMN "ordering_value" text;--> statement-breakpoint
CREATE FUNCTION inbox_mirror_open_ordered() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM open_ordered_deliveries
    WHERE destination_id = OLD.destination_id AND ordering_value = OLD.ordering_value AND delivery_id = OLD.id;
  ELSIF NEW.status IN ('pending', 'delivering') THEN
    INSERT INTO open_ordered_deliveries (destination_id, ordering_value, delivery_id)
    VALUES (NEW.destination_id, NEW.ordering_value, NEW.id) ON CONFLICT DO NOTHING;
  ELSE
    DELETE FROM open_ordered_deliveries
    WHERE destination_id = NEW.destination_id AND ordering_value = NEW.ordering_value AND delivery_id = NEW.id;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER deliveries_ordered_inserted AFTER INSERT ON deliveries FOR EACH ROW
  WHEN (NEW.ordering_value IS NOT NULL AND NEW.status IN ('pending', 'delivering'))
  EXECUTE FUNCTION inbox_mirror_open_ordered();--> statement-breakpoint
CREATE TRIGGER deliveries_ordered_changed AFTER UPDATE OF status ON deliveries FOR EACH ROW
  WHEN (NEW.ordering_value IS NOT NULL AND (OLD.status IN ('pending', 'delivering')) <> (NEW.status IN ('pending', 'delivering')))
  EXECUTE FUNCTION inbox_mirror_open_ordered();--> statement-breakpoint
CREATE TRIGGER deliveries_ordered_deleted AFTER DELETE ON deliveries FOR EACH ROW
  WHEN (OLD.ordering_value IS NOT NULL AND OLD.status IN ('pending', 'delivering'))
  EXECUTE FUNCTION inbox_mirror_open_ordered();
