-- How many deliveries each endpoint holds, and how many of them are delivered and dead, from the counters the
-- triggers keep (migrations 0004, 0022) and the events not folded in yet; the rest of what it holds is open.
-- One definition for the endpoint's stats and /api/metrics, neither of which counts deliveries. A filter on
-- endpoint_id reaches both halves of the union (the primary key of delivery_counters; the small table of events).
CREATE VIEW endpoint_delivery_counts AS
SELECT endpoint_id,
  coalesce(sum(count) FILTER (WHERE event = 'received'), 0) - coalesce(sum(count) FILTER (WHERE event = 'removed'), 0) AS held,
  coalesce(sum(count) FILTER (WHERE event = 'delivered'), 0) - coalesce(sum(count) FILTER (WHERE event = 'no_longer_delivered'), 0) AS delivered,
  coalesce(sum(count) FILTER (WHERE event = 'dead'), 0) - coalesce(sum(count) FILTER (WHERE event = 'no_longer_dead'), 0) AS dead
FROM (
  SELECT endpoint_id, event, count FROM delivery_counters
  UNION ALL
  SELECT endpoint_id, event, count FROM delivery_counter_events
) counted
GROUP BY endpoint_id;
