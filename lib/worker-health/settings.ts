// Timings of worker heartbeats and dead-worker recovery. Defaults suit production; tests shorten them
// through the environment.
import { positiveNumberEnv as positiveNumber } from "@/lib/env-number";

export interface WorkerHealthSettings {
  /** How often a worker process records its heartbeat. */
  heartbeatIntervalMs: number;
  /** A heartbeat older than this means the worker is dead (and /api/health reports "stale"). */
  staleAfterMs: number;
  /** How often a worker looks for dead workers' locked jobs. */
  releaseIntervalMs: number;
}

export function workerHealthSettings(env: NodeJS.ProcessEnv = process.env): WorkerHealthSettings {
  return {
    heartbeatIntervalMs: positiveNumber(env.WORKER_HEARTBEAT_INTERVAL_MS, 5_000),
    staleAfterMs: positiveNumber(env.WORKER_STALE_AFTER_MS, 30_000),
    releaseIntervalMs: positiveNumber(env.WORKER_RELEASE_INTERVAL_MS, 15_000),
  };
}
