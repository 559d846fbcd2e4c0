-- Each organization's delivery id floor (lib/storage/delivery-id-floor.ts): an id at or below every delivery it
-- holds, which its dashboard's and API's queries name so that they plan only the partitions from there on.
-- '' (every partition) until the worker's first refresh. A constant default: no table rewrite.
ALTER TABLE "organizations" ADD COLUMN "delivery_id_floor" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Where the oldest partition of deliveries holding a row of `org` begins, among those ending above `above` (its
-- floor so far), oldest first: one probe of the partition's deliveries_org_received_idx each, planned for this
-- organization (a probe through the parent, pruned at run time, was planned as a range scan of each partition's
-- primary key). '' for the legacy partition (FROM MINVALUE); NULL when none does. The default partition is not
-- looked at: its rows are in no order of partitions (the caller takes its least id).
CREATE FUNCTION inbox_oldest_delivery_partition_start(org text, above text) RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  part record;
  held boolean;
BEGIN
  FOR part IN
    SELECT c.relname,
      coalesce(substring(pg_get_expr(c.relpartbound, c.oid) FROM 'FROM \(''([^'']+)''\)'), '') COLLATE "default" AS from_id,
      substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \(''([^'']+)''\)') COLLATE "default" AS to_id
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'deliveries'::regclass
    ORDER BY to_id
  LOOP
    CONTINUE WHEN part.to_id IS NULL OR part.to_id <= above;
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE organization_id = $1)', part.relname) INTO held USING org;
    IF held THEN
      RETURN part.from_id;
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;
