import os from "node:os";
import type postgres from "postgres";
import { getSql } from "@/db";

/**
 * Records that the graphile-worker pool `poolId` (the value its jobs carry in `locked_by`) is alive,
 * on the database's clock, so that nobody releases its jobs.
 */
export async function recordHeartbeat({ poolId, sql = getSql() }: { poolId: string; sql?: postgres.Sql }): Promise<void> {
  await sql`
    insert into worker_heartbeats (pool_id, hostname, pid)
    values (${poolId}, ${os.hostname()}, ${process.pid})
    on conflict (pool_id) do update set last_seen_at = now()`;
}
