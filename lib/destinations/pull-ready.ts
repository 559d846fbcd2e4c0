// A pull destination's waiting pulls are told, by NOTIFY on one channel with the destination's id as payload, that
// a delivery there may be ready: ingest's statement (lib/ingest/group-commit.ts) when it stores one, the worker when
// a due retry or a replay parks one for pulls, and an ack, nack or expiry (an earlier delivery of an ordering value
// settled). Each web process listens on one connection (lib/pull/pull-waiters.ts). A notice is only a hint to look
// again: a pull claims what is ready itself.
import type postgres from "postgres";

export const PULL_READY_CHANNEL = "inbox_pull_ready";

/** Tells the destinations' waiting pulls to look again (delivered at commit, once per destination and transaction). */
export async function notifyPullReady(sql: postgres.Sql | postgres.TransactionSql | postgres.ReservedSql, destinationIds: readonly string[]): Promise<void> {
  if (destinationIds.length === 0) return;
  await sql`select pg_notify(${PULL_READY_CHANNEL}, id) from unnest(${[...new Set(destinationIds)]}::text[]) as id`;
}
