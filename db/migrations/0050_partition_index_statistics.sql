-- A week's partitions keep their parents' statistics targets on their indexes (inbox_make_delivery_partition,
-- 0027, made each partition's indexes from the parents' definitions alone). The body's word index sets its
-- columns' targets to 0 (db/online-indexes.ts, applied to the parent and every partition by each migrate):
-- ANALYZE otherwise evaluates an index's expressions for every row it samples, here inbox_body_word_vector
-- for up to 30,000 bodies a partition (13.4 s against 0.23 s for 30,000 realistic bodies, measured), and a
-- busy week's partition is analysed each time a tenth more rows arrived. A new week made without the
-- targets would pay that until the next migrate.
CREATE OR REPLACE FUNCTION inbox_make_delivery_partition(suffix text, bound text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  parent text;
  parent_index oid;
  index_name text;
  index_tail text;
  index_unique boolean;
  column_number int;
  column_target int;
BEGIN
  FOREACH parent IN ARRAY ARRAY['deliveries', 'delivery_payloads', 'attempts'] LOOP
    EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING STORAGE INCLUDING COMPRESSION)', parent || suffix, parent);
    -- Each of the parent's indexes (but the keys', which ATTACH makes as <partition>_pkey), named as the
    -- legacy partitions' are: the partition's name, then the parent index's name after the parent's.
    FOR parent_index, index_name, index_tail, index_unique IN
      SELECT i.indexrelid, c.relname, substring(pg_get_indexdef(i.indexrelid) FROM ' USING .*$'), i.indisunique
      FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
      WHERE i.indrelid = parent::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)
    LOOP
      EXECUTE format('CREATE %s INDEX %I ON %I %s', CASE WHEN index_unique THEN 'UNIQUE' ELSE '' END,
        parent || suffix || substr(index_name, length(parent) + 1), parent || suffix, index_tail);
      FOR column_number, column_target IN
        SELECT a.attnum, a.attstattarget FROM pg_attribute a WHERE a.attrelid = parent_index AND a.attnum > 0 AND a.attstattarget >= 0
      LOOP
        EXECUTE format('ALTER INDEX %I ALTER COLUMN %s SET STATISTICS %s',
          parent || suffix || substr(index_name, length(parent) + 1), column_number, column_target);
      END LOOP;
    END LOOP;
    EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I %s', parent, parent || suffix, bound);
  END LOOP;
END
$$;
