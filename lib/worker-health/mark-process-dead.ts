import os from "node:os";
import type postgres from "postgres";

/**
 * Ages the heartbeat of a worker process its supervisor saw exit (SIGKILL, crash), so that
 * /api/health says `stale` at once instead of for up to WORKER_STALE_AFTER_MS, and the next
 * dead-worker sweep (the restarted worker runs one as it starts) releases its jobs at once.
 * A heartbeat names its process by host and pid; the process has exited, so no live pool matches.
 */
export async function markProcessDead({ pid, sql, hostname = os.hostname() }: { pid: number; sql: postgres.Sql; hostname?: string }): Promise<number> {
  const rows = await sql`
    update worker_heartbeats set last_seen_at = 'epoch'
    where hostname = ${hostname} and pid = ${pid}
    returning pool_id`;
  return rows.length;
}
