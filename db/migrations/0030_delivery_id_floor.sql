-- Each organization's delivery id floor (lib/storage/delivery-id-floor.ts): an id at or below every delivery it
-- holds, which its dashboard's and API's queries name so that they plan only the partitions from there on.
-- '' (every partition) until the first refresh: every migrate and the worker's hourly job refresh the floors. A constant default: no table rewrite.
ALTER TABLE "organizations" ADD COLUMN "delivery_id_floor" text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Where the oldest partition of deliveries holding a row of `org` begins, among those ending above `above` (its
-- floor so far), oldest first: `partitions`, `froms` and `tos` are the partitions (but the default one) in the
-- order of their bounds, and their bounds ('' for FROM MINVALUE), read once by the caller for every organization.
-- One probe of the partition's deliveries_org_received_idx each, planned for this organization (a probe through
-- the parent, pruned at run time, was planned as a range scan of each partition's primary key). NULL when none
-- holds one.
CREATE FUNCTION inbox_oldest_delivery_partition_start(org text, above text, partitions text[], froms text[], tos text[])
RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  held boolean;
BEGIN
  FOR k IN 1 .. coalesce(array_length(partitions, 1), 0) LOOP
    CONTINUE WHEN tos[k] <= above;
    EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE organization_id = $1)', partitions[k]) INTO held USING org;
    IF held THEN
      RETURN froms[k];
    END IF;
  END LOOP;
  RETURN NULL;
END
$$;
