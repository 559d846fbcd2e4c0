-- The storage layout of issue #13 (ARCHITECTURE.md, "Storage layout"): deliveries, delivery_payloads and
-- attempts become tables partitioned by RANGE of the delivery id, which since lib/ids.ts's time-ordered
-- ids begins with its time. Each table as it stands becomes the legacy partition of its new parent
-- (ATTACH PARTITION: its rows are not copied, its indexes are attached to the parent's, none is built
-- unless an earlier online build never ran); from now on one partition of each per week, made a week
-- ahead by inbox_make_delivery_partitions (this migration, then the worker's cron).
--
-- What a partitioned table cannot have, moved:
--   the dedupe key: a unique index of a partitioned table must hold the partition key, so
--   (endpoint_id, external_id) becomes the table delivery_keys, which ingest inserts into first;
--   the foreign keys from delivery_payloads and attempts to deliveries: a partition referred to by a
--   foreign key can be dropped only after a DETACH that takes the parent's ACCESS EXCLUSIVE lock and
--   reads the referring table, and PostgreSQL 15 cannot add such a key NOT VALID to a partitioned
--   table (the upgrade would check every row with writes held). Their ON DELETE CASCADE becomes one
--   statement trigger, inbox_delete_delivery_dependents, which deletes the payloads, attempts and
--   keys of the deliveries a statement deleted;
--   the counter triggers that read transition tables: a partition may not have them, so they move
--   to the parent (same definitions as 0004 and 0022);
--   attempts' primary key on id alone: kept on the legacy partition; ids stay unique by their sequence.
--
-- Writes to the three tables wait from the first statement to the commit. Measured on 1,000,000
-- deliveries (README, upgrade notes): the keys' copy and index, and the attach's one read of each
-- legacy table to check its bound, are most of it. Ingest answers 503 meanwhile; nothing is lost.
LOCK TABLE deliveries, delivery_payloads, attempts IN EXCLUSIVE MODE;--> statement-breakpoint

CREATE FUNCTION inbox_base36(n bigint, width int) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT string_agg(substr('0123456789abcdefghijklmnopqrstuvwxyz', ((n / (36::bigint ^ k)::bigint) % 36)::int + 1, 1), '' ORDER BY k DESC)
  FROM generate_series(0, width - 1) AS k
$$;--> statement-breakpoint
-- lib/ids.ts timeOrderedIdFloor: the smallest time-ordered id made at `at` or later (a test keeps the two equal).
CREATE FUNCTION inbox_time_ordered_id_floor(prefix text, at timestamptz) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
  SELECT prefix || '_g' || inbox_base36(floor(extract(epoch FROM at) * 1000)::bigint, 9)
$$;--> statement-breakpoint

-- The dedupe keys, apart. Indexed after the copy: one sorted build, not one insert at a time.
CREATE TABLE "delivery_keys" (
	"endpoint_id" text NOT NULL,
	"external_id" text NOT NULL,
	"delivery_id" text NOT NULL
);--> statement-breakpoint
INSERT INTO delivery_keys (endpoint_id, external_id, delivery_id) SELECT endpoint_id, external_id, id FROM deliveries;--> statement-breakpoint
ALTER TABLE delivery_keys ADD CONSTRAINT "delivery_keys_endpoint_id_external_id_pk" PRIMARY KEY ("endpoint_id", "external_id");--> statement-breakpoint

-- The tables as they stand become the legacy partitions. Indexes that online builds have since
-- replaced go now (their replacements are built below if they were not yet); the others take the
-- partition's name so that the parents' indexes keep the names the code and ARCHITECTURE.md use.
DROP INDEX IF EXISTS deliveries_endpoint_pending_since_idx, deliveries_endpoint_open_idx, delivery_payloads_body_trgm_idx, deliveries_endpoint_id_external_id_index;--> statement-breakpoint
DROP TRIGGER deliveries_count_inserted ON deliveries;--> statement-breakpoint
DROP TRIGGER deliveries_count_outcome ON deliveries;--> statement-breakpoint
DROP TRIGGER deliveries_count_deleted ON deliveries;--> statement-breakpoint
DROP TRIGGER deliveries_count_settled_left ON deliveries;--> statement-breakpoint
ALTER TABLE attempts DROP CONSTRAINT "attempts_delivery_id_deliveries_id_fk";--> statement-breakpoint
ALTER TABLE delivery_payloads DROP CONSTRAINT "delivery_payloads_delivery_id_deliveries_id_fk";--> statement-breakpoint
ALTER TABLE deliveries RENAME TO deliveries_legacy;--> statement-breakpoint
ALTER TABLE delivery_payloads RENAME TO delivery_payloads_legacy;--> statement-breakpoint
ALTER TABLE attempts RENAME TO attempts_legacy;--> statement-breakpoint
DO $$
DECLARE
  parent text;
  index_name text;
BEGIN
  FOREACH parent IN ARRAY ARRAY['deliveries', 'delivery_payloads', 'attempts'] LOOP
    FOR index_name IN SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND tablename = parent || '_legacy' LOOP
      EXECUTE format('ALTER INDEX %I RENAME TO %I', index_name, parent || '_legacy' || substr(index_name, length(parent) + 1));
    END LOOP;
  END LOOP;
END
$$;--> statement-breakpoint

-- The online indexes (db/online-indexes.ts) a database never had built yet, under the legacy partitions'
-- naming; on a database that has them, nothing.
CREATE INDEX IF NOT EXISTS deliveries_legacy_endpoint_waiting_idx ON deliveries_legacy USING btree (endpoint_id, pending_since, id) WHERE status IN ('pending', 'delivering');--> statement-breakpoint
CREATE INDEX IF NOT EXISTS deliveries_legacy_org_external_id_lower_idx ON deliveries_legacy USING btree (organization_id, lower(external_id));--> statement-breakpoint
CREATE INDEX IF NOT EXISTS delivery_payloads_legacy_unsearchable_idx ON delivery_payloads_legacy USING btree (organization_id) WHERE NOT searchable;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS delivery_payloads_legacy_body_searchable_trgm_idx ON delivery_payloads_legacy USING gin (encode(body, 'escape') gin_trgm_ops) WHERE searchable AND octet_length(body) <= 65536;--> statement-breakpoint

-- The parents: the same columns, defaults and storage; keys, foreign keys to organizations and indexes
-- as before (db/schema/deliveries.ts).
CREATE TABLE deliveries (LIKE deliveries_legacy INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION) PARTITION BY RANGE (id);--> statement-breakpoint
CREATE TABLE delivery_payloads (LIKE delivery_payloads_legacy INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION) PARTITION BY RANGE (delivery_id);--> statement-breakpoint
CREATE TABLE attempts (LIKE attempts_legacy INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION) PARTITION BY RANGE (delivery_id);--> statement-breakpoint
ALTER SEQUENCE attempts_id_seq OWNED BY attempts.id;--> statement-breakpoint
ALTER TABLE deliveries ATTACH PARTITION deliveries_legacy FOR VALUES FROM (MINVALUE) TO (inbox_time_ordered_id_floor('dlv', now()));--> statement-breakpoint
ALTER TABLE delivery_payloads ATTACH PARTITION delivery_payloads_legacy FOR VALUES FROM (MINVALUE) TO (inbox_time_ordered_id_floor('dlv', now()));--> statement-breakpoint
ALTER TABLE attempts ATTACH PARTITION attempts_legacy FOR VALUES FROM (MINVALUE) TO (inbox_time_ordered_id_floor('dlv', now()));--> statement-breakpoint
ALTER TABLE deliveries ADD CONSTRAINT deliveries_pkey PRIMARY KEY (id);--> statement-breakpoint
ALTER TABLE deliveries ADD CONSTRAINT "deliveries_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX deliveries_org_received_idx ON deliveries USING btree (organization_id, received_at DESC NULLS LAST, id DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX deliveries_endpoint_received_idx ON deliveries USING btree (endpoint_id, received_at DESC NULLS LAST, id DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX deliveries_endpoint_waiting_idx ON deliveries USING btree (endpoint_id, pending_since, id) WHERE status IN ('pending', 'delivering');--> statement-breakpoint
CREATE INDEX deliveries_endpoint_dead_idx ON deliveries USING btree (endpoint_id, updated_at) WHERE status = 'dead';--> statement-breakpoint
CREATE INDEX deliveries_endpoint_in_flight_idx ON deliveries USING btree (endpoint_id, lease_expires_at) WHERE status = 'delivering';--> statement-breakpoint
CREATE INDEX deliveries_endpoint_parked_idx ON deliveries USING btree (endpoint_id, parked_at, id) WHERE parked_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX deliveries_org_open_idx ON deliveries USING btree (organization_id, received_at DESC NULLS LAST, id DESC NULLS LAST) WHERE status IN ('pending', 'delivering');--> statement-breakpoint
CREATE INDEX deliveries_org_dead_idx ON deliveries USING btree (organization_id, received_at DESC NULLS LAST, id DESC NULLS LAST) WHERE status = 'dead';--> statement-breakpoint
CREATE INDEX deliveries_org_event_type_idx ON deliveries USING btree (organization_id, event_type, received_at DESC NULLS LAST, id DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX deliveries_org_external_id_lower_idx ON deliveries USING btree (organization_id, lower(external_id));--> statement-breakpoint
CREATE INDEX deliveries_org_large_body_idx ON deliveries USING btree (organization_id, received_at DESC NULLS LAST, id DESC NULLS LAST) WHERE size_bytes > 65536;--> statement-breakpoint
CREATE INDEX deliveries_org_settled_idx ON deliveries USING btree (organization_id, updated_at) WHERE status IN ('delivered', 'dead');--> statement-breakpoint
CREATE INDEX deliveries_event_type_trgm_idx ON deliveries USING gin (event_type gin_trgm_ops);--> statement-breakpoint
ALTER TABLE delivery_payloads ADD CONSTRAINT delivery_payloads_pkey PRIMARY KEY (delivery_id);--> statement-breakpoint
CREATE INDEX delivery_payloads_unsearchable_idx ON delivery_payloads USING btree (organization_id) WHERE NOT searchable;--> statement-breakpoint
CREATE INDEX delivery_payloads_body_searchable_trgm_idx ON delivery_payloads USING gin (encode(body, 'escape') gin_trgm_ops) WHERE searchable AND octet_length(body) <= 65536;--> statement-breakpoint
CREATE UNIQUE INDEX attempts_delivery_id_number_index ON attempts USING btree (delivery_id, number);--> statement-breakpoint
ALTER TABLE attempts ADD CONSTRAINT "attempts_organization_id_organizations_id_fk" FOREIGN KEY ("organization_id") REFERENCES "public"."organizations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint

-- The counter triggers, on the parent (their functions are unchanged).
CREATE TRIGGER deliveries_count_inserted AFTER INSERT ON deliveries REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION inbox_count_inserted_deliveries();--> statement-breakpoint
CREATE TRIGGER deliveries_count_deleted AFTER DELETE ON deliveries REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION inbox_count_deleted_deliveries();--> statement-breakpoint
CREATE TRIGGER deliveries_count_outcome AFTER UPDATE OF status ON deliveries FOR EACH ROW
  WHEN (NEW.status IN ('delivered', 'dead') AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION inbox_count_delivery_outcome();--> statement-breakpoint
CREATE TRIGGER deliveries_count_settled_left AFTER UPDATE OF status ON deliveries FOR EACH ROW
  WHEN (OLD.status IN ('delivered', 'dead') AND OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION inbox_count_settled_left();--> statement-breakpoint

-- What the foreign keys' cascades did, once per statement: a deleted delivery's payload, attempts and
-- dedupe key go with it (retention, purges, organization deletion, a test's clean-up).
CREATE FUNCTION inbox_delete_delivery_dependents() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM delivery_payloads p USING deleted d WHERE p.delivery_id = d.id;
  DELETE FROM attempts a USING deleted d WHERE a.delivery_id = d.id;
  DELETE FROM delivery_keys k USING deleted d
  WHERE k.endpoint_id = d.endpoint_id AND k.external_id = d.external_id AND k.delivery_id = d.id;
  RETURN NULL;
END
$$;--> statement-breakpoint
CREATE TRIGGER deliveries_delete_dependents AFTER DELETE ON deliveries REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION inbox_delete_delivery_dependents();--> statement-breakpoint

-- One partition of each of the three tables, `suffix` after the table's name, for `bound` (DEFAULT or
-- FOR VALUES ...). Created apart and then attached: ATTACH takes the parent's SHARE UPDATE EXCLUSIVE
-- lock, which lets ingest, the worker and the dashboard go on (CREATE TABLE ... PARTITION OF would take
-- ACCESS EXCLUSIVE), and an empty table's check and indexes cost nothing.
CREATE FUNCTION inbox_make_delivery_partition(suffix text, bound text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  parent text;
  index_name text;
  index_tail text;
  index_unique boolean;
BEGIN
  FOREACH parent IN ARRAY ARRAY['deliveries', 'delivery_payloads', 'attempts'] LOOP
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION)', parent || suffix, parent);
    -- Each of the parent's indexes (but the keys', which ATTACH makes as <partition>_pkey), named as the
    -- legacy partitions' are: the partition's name, then the parent index's name after the parent's.
    FOR index_name, index_tail, index_unique IN
      SELECT c.relname, substring(pg_get_indexdef(i.indexrelid) FROM ' USING .*$'), i.indisunique
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = parent::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
    LOOP
      EXECUTE format('CREATE %s INDEX %I ON %I %s', CASE WHEN index_unique THEN 'UNIQUE' ELSE '' END,
        parent || suffix || substr(index_name, length(parent) + 1), parent || suffix, index_tail);
    END LOOP;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I %s', parent, parent || suffix, bound);
  END LOOP;
END
$$;--> statement-breakpoint
-- Ids no other partition holds: ids of other shapes (tests' hand-made ones), and time-ordered ids of a
-- week not made yet (the cron stopped for weeks). Empty in the normal course: attaching a week reads it.
SELECT inbox_make_delivery_partition('_default', 'DEFAULT');--> statement-breakpoint

-- A week's partitions, for the week starting `monday` (UTC): ids made from then to the next Monday, or,
-- in the week of the upgrade, from the legacy partitions' end. Returns whether it made them. A week
-- whose ids are already in the default partition (made while its partitions were missing) cannot be
-- attached: skipped with a warning, its rows stay where they are.
CREATE FUNCTION inbox_make_delivery_week(monday date) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
  week_from text := inbox_time_ordered_id_floor('dlv', monday::timestamp AT TIME ZONE 'UTC');
  week_to text := inbox_time_ordered_id_floor('dlv', (monday + 7)::timestamp AT TIME ZONE 'UTC');
  suffix text := '_w' || to_char(monday, 'YYYYMMDD');
  taken text;
BEGIN
  IF to_regclass('deliveries' || suffix) IS NOT NULL THEN
    RETURN false;
  END IF;
  -- Where the partitions that end inside this week end (the legacy ones, in the week of the upgrade).
  SELECT max(bound) INTO taken FROM (
    SELECT substring(pg_get_expr(c.relpartbound, c.oid) FROM 'TO \(''([^'']+)''\)') AS bound
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'deliveries'::regclass
  ) AS partitions WHERE bound < week_to;
  IF taken > week_from THEN
    week_from := taken;
  END IF;
  IF week_from >= week_to THEN
    RETURN false;
  END IF;
  BEGIN
    PERFORM inbox_make_delivery_partition(suffix, format('FOR VALUES FROM (%L) TO (%L)', week_from, week_to));
  EXCEPTION WHEN check_violation THEN
    RAISE WARNING 'the partitions of the week of % were not made: the default partition holds some of its deliveries', monday;
    RETURN false;
  END;
  RETURN true;
END
$$;--> statement-breakpoint
-- This week's partitions and the next `weeks_ahead` weeks'; returns how many weeks it made.
CREATE FUNCTION inbox_make_delivery_partitions(weeks_ahead int) RETURNS int LANGUAGE sql AS $$
  SELECT count(*) FILTER (WHERE inbox_make_delivery_week((date_trunc('week', now() AT TIME ZONE 'UTC')::date + 7 * w)))::int
  FROM generate_series(0, weeks_ahead) AS w
$$;--> statement-breakpoint
SELECT inbox_make_delivery_partitions(1);
