// The heartbeat and recovery loops one worker process runs beside its graphile-worker pool.
import { recordHeartbeat } from "./record-heartbeat";
import { releaseDeadWorkers } from "./release-dead-workers";
import { removeHeartbeat } from "./remove-heartbeat";
import type { WorkerHealthSettings } from "./settings";
import { describeErrorBriefly } from "@/lib/logging/describe-error";
import { logger } from "@/lib/logging/logger";

export interface WorkerVitals {
  /** Stops both loops; with `forget`, deletes the heartbeat (the pool holds no more jobs). */
  stop(options: { forget: boolean }): Promise<void>;
}

/** Runs `task` now and then every `intervalMs` (never overlapping) until stopped. */
function repeat(intervalMs: () => number, task: () => Promise<void>) {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = task().finally(() => {
      if (!stopped) timer = setTimeout(tick, intervalMs());
    });
  };
  tick();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}

/**
 * Starts recording `poolId`'s heartbeat (first write at once) and, every ~releaseIntervalMs, releases
 * the jobs of pools whose heartbeat went stale. Once the heartbeat has failed for half the staleness
 * threshold, `onHeartbeatLost` is called (once): soon others may count this pool dead and release its jobs
 * while it still runs them, and jobs it locked but never heard back about (a fetch whose reply was lost
 * with the connection) stay locked by a live pool for graphile-worker's 4 hours. The worker exits on it.
 */
export function keepWorkerAlive({ poolId, settings, onHeartbeatLost }: {
  poolId: string;
  settings: WorkerHealthSettings;
  onHeartbeatLost: (failingForMs: number) => void;
}): WorkerVitals {
  let lost = false;
  let failingSince: number | undefined;
  const stopHeartbeat = repeat(
    () => settings.heartbeatIntervalMs,
    async () => {
      try {
        await recordHeartbeat({ poolId });
        if (failingSince !== undefined) logger.info(`[worker] heartbeat recorded again for ${poolId}`);
        failingSince = undefined;
      } catch (error) {
        if (failingSince === undefined) failingSince = Date.now();
        const late = Date.now() - failingSince;
        logger.error(`[worker] cannot record heartbeat for ${poolId} (failing for ${late} ms): ${describeErrorBriefly(error)}`);
        if (!lost && late >= settings.staleAfterMs / 2) {
          lost = true;
          onHeartbeatLost(late);
        }
      }
    },
  );
  // Jitter spreads the sweeps of several workers; the sweep itself is serialised by an advisory lock.
  const stopRelease = repeat(
    () => settings.releaseIntervalMs * (0.8 + Math.random() * 0.4),
    async () => {
      try {
        const released = await releaseDeadWorkers({ staleAfterMs: settings.staleAfterMs });
        if (released.length > 0) logger.warn(`[worker] released the jobs of dead worker pools: ${released.join(", ")}`);
      } catch (error) {
        logger.error(`[worker] releasing dead workers failed: ${describeErrorBriefly(error)}`);
      }
    },
  );
  return {
    async stop({ forget }) {
      await Promise.all([stopHeartbeat(), stopRelease()]);
      if (forget) await removeHeartbeat({ poolId }).catch((error) => logger.error(`[worker] removing the heartbeat failed: ${describeErrorBriefly(error)}`));
    },
  };
}
