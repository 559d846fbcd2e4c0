// The worker process's database sessions commit without waiting for the WAL flush
// (WORKER_SYNCHRONOUS_COMMIT, default off); the web process's (ingest, REST, dashboard) keep waiting.
// Why that is safe is in ARCHITECTURE.md ("Worker commits are asynchronous"): a crash of PostgreSQL
// loses only the newest worker commits, whole and in order, and the lease and rescue redo them; what
// ingest acknowledged was flushed before its 200.
import { hotPathPlanCacheMode, sessionSettingFromEnv, setProcessSessionSettings, type PlanCacheMode } from "@/db";

const LEVELS = ["off", "local", "remote_write", "on", "remote_apply"] as const;
export type SynchronousCommit = (typeof LEVELS)[number];

export function workerSynchronousCommit(env: Record<string, string | undefined> = process.env): SynchronousCommit {
  return sessionSettingFromEnv("WORKER_SYNCHRONOUS_COMMIT", LEVELS, "off", env);
}

/**
 * Applies the worker's session settings to every pool of this process (db/index.ts) and returns the
 * connection string for graphile-worker's own pool (node-postgres), carrying them as startup options.
 */
export function useWorkerSessions(
  databaseUrl: string,
  env: NodeJS.ProcessEnv = process.env,
): { connectionString: string; synchronousCommit: SynchronousCommit; planCacheMode: PlanCacheMode } {
  const synchronousCommit = workerSynchronousCommit(env);
  // Every statement of the worker is one of the hot path's, or a short indexed one (db/index.ts hotPathPlanCacheMode).
  const planCacheMode = hotPathPlanCacheMode(env);
  setProcessSessionSettings({ synchronous_commit: synchronousCommit, plan_cache_mode: planCacheMode });
  const url = new URL(databaseUrl);
  const options = [url.searchParams.get("options"), `-c synchronous_commit=${synchronousCommit}`, `-c plan_cache_mode=${planCacheMode}`].filter(Boolean).join(" ");
  url.searchParams.set("options", options);
  return { connectionString: url.toString(), synchronousCommit, planCacheMode };
}
