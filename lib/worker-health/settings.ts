// Timings of worker heartbeats and dead-worker recovery, from the configuration (lib/config/schema.ts).
// Defaults suit production; tests shorten them through the environment.
import { config, type Config } from "@/lib/config/config";

export interface WorkerHealthSettings {
  /** How often a worker process records its heartbeat. */
  heartbeatIntervalMs: number;
  /** A heartbeat older than this means the worker is dead (and /api/health reports "stale"). */
  staleAfterMs: number;
  /** How often a worker looks for dead workers' locked jobs. */
  releaseIntervalMs: number;
}

export function workerHealthSettings(settings: Config = config()): WorkerHealthSettings {
  return {
    heartbeatIntervalMs: settings.WORKER_HEARTBEAT_INTERVAL_MS,
    staleAfterMs: settings.WORKER_STALE_AFTER_MS,
    releaseIntervalMs: settings.WORKER_RELEASE_INTERVAL_MS,
  };
}
