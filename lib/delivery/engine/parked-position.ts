// Where a delivery waits in its endpoint's line of parked deliveries. Parked deliveries leave in
// parked_at order (wake-ups, chains: endpoint-slots.ts, finish-attempt.ts), so parked_at is a
// place in line rather than the time it parked. SQL text, for every statement that parks.

/**
 * Where a delivery (d) parks. One never attempted keeps its place by arrival (received_at): a
 * delivery stored before a pause whose job parks it, or a woken one that finds the endpoint full
 * again (a wake cannot count woken jobs not yet claimed), does not go behind later arrivals, which
 * ingest stores parked in order of arrival while the endpoint is paused. A retry or a replay queues
 * from when it parks.
 */
export const PARKED_POSITION = "case when d.attempt_count = 0 then least(d.received_at, now()) else now() end";

/**
 * True of a delivery (d) this very transaction has parked, for the statements after the parking one
 * in the same transaction: parked_at no longer says so (it may be received_at), updated_at = now() does.
 */
export const PARKED_HERE = "(d.parked_at is not null and d.updated_at = now())";

/**
 * The least and greatest id parked at the endpoint `endpoint` (SQL text of its id), as `<least> and <greatest>`
 * for a `between`: two probes of parked_deliveries' primary key (kept in the transaction that parks or unparks,
 * so it holds exactly the deliveries parked at any snapshot; null when none is). Every pick of an endpoint's
 * oldest parked deliveries names it (`d.id between …`), so PostgreSQL reads the parked index of the weeks
 * between, pruned as the statement runs, not of every week kept (a wake at 55 partitions probed 55 indexes).
 */
export const parkedIdRange = (endpoint: string) =>
  `(select min(pk.delivery_id) from parked_deliveries pk where pk.endpoint_id = ${endpoint})
    and (select max(pk.delivery_id) from parked_deliveries pk where pk.endpoint_id = ${endpoint})`;
