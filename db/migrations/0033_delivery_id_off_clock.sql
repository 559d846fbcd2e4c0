-- A search asked the body index for a slice of deliveries by the time buckets of their ids (the first 10
-- characters: `dlv_g` and the first 5 base-36 digits of the id's milliseconds, ~28 min), and to know which
-- buckets a slice spans it read every row of the slice from the list index: 165,000 entries, ~146 ms, for a rare
-- word on bench/dashboard's 10M. It now takes a slice by its receipt times alone and asks for the buckets around
-- them, one either side: that holds every delivery whose id was made within a bucket of its receipt. The others
-- (an id made before ids held their time, or by an app clock far off the database's) are few, and this function
-- says which: deliveries_org_off_clock_idx is partial on it (built online: db/online-indexes.ts) and a slice
-- asks it for those of its times (lib/delivery/search-deliveries.ts).
-- Plain SQL of immutable functions, so that PostgreSQL inlines it into both the index's predicate and the
-- query's, which then match: the id's bucket number from its 5 digits, the receipt's from its epoch
-- milliseconds (a timestamptz minus a constant is an interval, whose epoch is immutable; extract() of a
-- timestamptz is only stable).
CREATE FUNCTION inbox_delivery_id_off_clock(id text, received_at timestamptz) RETURNS boolean
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT left(id, 5) <> 'dlv_g' OR abs(
      (strpos('0123456789abcdefghijklmnopqrstuvwxyz', substr(id, 6, 1)) - 1) * 1679616
    + (strpos('0123456789abcdefghijklmnopqrstuvwxyz', substr(id, 7, 1)) - 1) * 46656
    + (strpos('0123456789abcdefghijklmnopqrstuvwxyz', substr(id, 8, 1)) - 1) * 1296
    + (strpos('0123456789abcdefghijklmnopqrstuvwxyz', substr(id, 9, 1)) - 1) * 36
    + (strpos('0123456789abcdefghijklmnopqrstuvwxyz', substr(id, 10, 1)) - 1)
    - floor(extract(epoch FROM received_at - '1970-01-01 00:00:00+00'::timestamptz) * 1000 / 1679616)) > 1
$$;
