import type postgres from "postgres";
import { getSql } from "@/db";
import { poolsLockingSinceSql, unlockPools } from "@/lib/queue/queue-tables";

/** Only one process sweeps at a time; the others skip their turn. */
const SWEEP_LOCK = "webhook-inbox:release-dead-workers";

/**
 * Gives the jobs of dead worker pools back to the queue, instead of graphile-worker's 4-hour lock
 * expiry. A pool is dead when its heartbeat is older than `staleAfterMs`, or when it has no heartbeat
 * at all and holds locks older than that. graphile-worker 0.17 records the *pool's* id in
 * `locked_by`, and every live process refreshes its pool's heartbeat, so a live pool is never
 * released. Returns the released pool ids.
 */
export async function releaseDeadWorkers({
  staleAfterMs,
  sql = getSql(),
}: {
  staleAfterMs: number;
  sql?: postgres.Sql;
}): Promise<string[]> {
  return sql.begin(async (tx) => {
    const [{ locked }] = await tx`select pg_try_advisory_xact_lock(hashtext(${SWEEP_LOCK})) as locked`;
    if (!locked) return [];
    // now() is the transaction's start, so every comparison below uses one cutoff.
    const rows = await tx<{ poolId: string }[]>`
      with cutoff as (select now() - make_interval(secs => ${staleAfterMs / 1000}) as at),
      fresh as (select pool_id from worker_heartbeats, cutoff where last_seen_at >= cutoff.at),
      dead as (
        select pool_id from worker_heartbeats, cutoff where last_seen_at < cutoff.at
        union
        ${tx.unsafe(poolsLockingSinceSql("(select at from cutoff)", "select pool_id from fresh"))}
      )
      select pool_id as "poolId" from dead`;
    const poolIds = rows.map((row) => row.poolId);
    if (poolIds.length === 0) return [];
    await unlockPools(tx, poolIds);
    await tx`
      delete from worker_heartbeats
      where pool_id = any(${poolIds}::text[]) and last_seen_at < now() - make_interval(secs => ${staleAfterMs / 1000})`;
    return poolIds;
  });
}
