import type postgres from "postgres";
import { getSql } from "@/db";

/** Forgets a pool's heartbeat, once its process has shut down cleanly and holds no jobs. */
export async function removeHeartbeat({ poolId, sql = getSql() }: { poolId: string; sql?: postgres.Sql }): Promise<void> {
  await sql`delete from worker_heartbeats where pool_id = ${poolId}`;
}
