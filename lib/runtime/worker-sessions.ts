// The worker process's database sessions commit without waiting for the WAL flush
// (WORKER_SYNCHRONOUS_COMMIT, default off); the web process's (ingest, REST, dashboard) keep waiting.
// Why that is safe is in ARCHITECTURE.md ("Worker commits are asynchronous"): a crash of PostgreSQL
// loses only the newest worker commits, whole and in order, and the lease and rescue redo them; what
// ingest acknowledged was flushed before its 200.
import { setProcessSessionSettings, type PlanCacheMode } from "@/db";
import { config, type Config } from "@/lib/config/config";

export type SynchronousCommit = Config["WORKER_SYNCHRONOUS_COMMIT"];

/**
 * Applies the worker's session settings to every pool of this process (db/index.ts) and returns the
 * connection string for graphile-worker's own pool (node-postgres), carrying them as startup options.
 */
export function useWorkerSessions(
  databaseUrl: string,
  settings: Config = config(),
): { connectionString: string; synchronousCommit: SynchronousCommit; planCacheMode: PlanCacheMode } {
  const synchronousCommit = settings.WORKER_SYNCHRONOUS_COMMIT;
  // Every statement of the worker is one of the hot path's, or a short indexed one (HOT_PATH_PLAN_CACHE_MODE, db/index.ts).
  const planCacheMode = settings.HOT_PATH_PLAN_CACHE_MODE;
  setProcessSessionSettings({ synchronous_commit: synchronousCommit, plan_cache_mode: planCacheMode });
  const url = new URL(databaseUrl);
  const options = [url.searchParams.get("options"), `-c synchronous_commit=${synchronousCommit}`, `-c plan_cache_mode=${planCacheMode}`].filter(Boolean).join(" ");
  url.searchParams.set("options", options);
  return { connectionString: url.toString(), synchronousCommit, planCacheMode };
}
