// Runs graphile-worker over a task list (and crontab) until SIGTERM/SIGINT, then drains and exits 0.
// jobs/worker.ts runs it with the real tasks; tests run it with test tasks added.
import { EventEmitter } from "node:events";
import { run, type TaskList, type WorkerEvents, type WorkerPool } from "graphile-worker";
import { closeDb, databaseUrl, getSql } from "@/db";
import { config } from "@/lib/config/config";
import { checkQueueVersion } from "@/lib/queue/queue-tables";
import { keepWorkerAlive, type WorkerVitals } from "@/lib/worker-health/keep-worker-alive";
import { workerHealthSettings } from "@/lib/worker-health/settings";
import { quietGraphileLogger } from "./migrate";
import { useWorkerSessions } from "./worker-sessions";
import { describeError, describeErrorBriefly } from "@/lib/logging/describe-error";
import { logger } from "@/lib/logging/logger";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** `onStarted`: runs once graphile-worker has started (the worker's start-up notes and jobs). */
export async function runWorker(taskList: TaskList, options: { crontab?: string; onStarted?: () => Promise<void> } = {}): Promise<never> {
  const configured = config();
  // Before any pool opens: every session of this process, graphile-worker's included, commits as set.
  const sessions = useWorkerSessions(databaseUrl());
  // Attempts mostly wait on destinations, and the worker's claims and finishes share statements
  // (lib/delivery/engine/micro-batcher.ts): the more in flight, the fuller each statement (bench/deliver:
  // 20 in flight ~1,000 deliveries/s, 100 ~1,700/s). Per-endpoint caps keep one destination from taking them all.
  const concurrency = configured.WORKER_CONCURRENCY;
  const shutdownTimeoutMs = configured.WORKER_SHUTDOWN_TIMEOUT_MS;
  // Batching (STACK-NOTES 12): fetch and lock jobs in batches, complete them in batches.
  const localQueueSize = Math.max(configured.WORKER_LOCAL_QUEUE_SIZE, concurrency);
  const settings = workerHealthSettings(configured);

  let stopping = false;
  const exit = async (code: number, forget: boolean): Promise<never> => {
    await vitals?.stop({ forget });
    await closeDb().catch(() => {});
    process.exit(code);
  };
  // graphile-worker 0.17 locks jobs in the name of the pool (pitfall 14); the pool is created, and
  // its id known, synchronously inside run(). The first heartbeat is written as the pool starts;
  // jobs are only ever released once their lock is older than the staleness threshold.
  const events: WorkerEvents = new EventEmitter();
  let pool: WorkerPool | undefined;
  let vitals: WorkerVitals | undefined;
  events.on("pool:create", ({ workerPool }) => {
    pool = workerPool;
    vitals = keepWorkerAlive({
      poolId: workerPool.id,
      settings,
      onHeartbeatLost: (failingForMs) => {
        if (stopping) return;
        stopping = true;
        logger.error(`[worker] no heartbeat for ${failingForMs} ms: exiting, so that a new worker takes over this pool's jobs once its heartbeat is stale`);
        // Closing may wait on a database that is not there.
        setTimeout(() => process.exit(1), 5_000);
        void exit(1, false);
      },
    });
  });

  // The queue's SQL reads graphile-worker's private tables: only as the version it was written for lays them out.
  await checkQueueVersion(getSql());
  const runner = await run({
    connectionString: sessions.connectionString,
    taskList,
    crontab: options.crontab,
    concurrency,
    // graphile-worker's own queries only (tasks use the app's pool): fetching, completing, cron, and its
    // LISTEN client, which holds one for good (with a pool of 1 the cron would never register).
    maxPoolSize: Math.min(concurrency, 10) + 2,
    noHandleSignals: true,
    logger: quietGraphileLogger,
    events,
    preset: {
      worker: {
        localQueue: { size: localQueueSize },
        // Completions wait up to 10 ms to share one statement (~3 jobs a statement at 1 ms, more at 10;
        // bench/deliver ~4 % faster). The outcome is already recorded; a job whose completion is lost
        // with its worker runs again and finds its delivery settled.
        completeJobBatchDelay: 10,
        failJobBatchDelay: 1,
        // Tasks that honour the abort signal get it shortly before we give up on them.
        gracefulShutdownAbortTimeout: Math.max(0, shutdownTimeoutMs - 2_000),
      },
    },
  });
  logger.info(`[worker] ${pool?.id} running ${Object.keys(taskList).length} task(s), concurrency ${concurrency}, synchronous_commit ${sessions.synchronousCommit}, plan_cache_mode ${sessions.planCacheMode}`);

  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info(`[worker] ${signal}: taking no new jobs, finishing in-flight ones (up to ${shutdownTimeoutMs} ms)`);
    const stopped = runner.stop().then(
      () => true,
      (error) => (logger.error(`[worker] stopping failed: ${describeErrorBriefly(error)}`), true),
    );
    const drained = await Promise.race([stopped, sleep(shutdownTimeoutMs).then(() => false)]);
    if (!drained && pool) {
      logger.warn("[worker] shutdown timeout: failing the jobs still running so they are retried");
      await Promise.race([Promise.resolve(pool.forcefulShutdown("worker shutdown timeout")).catch(() => {}), sleep(5_000)]);
    }
    await exit(0, true);
  };
  for (const signal of ["SIGTERM", "SIGINT"] as const) process.on(signal, shutdown);
  // After the signal handlers: a SIGTERM during these steps still drains and exits 0.
  void options.onStarted?.().catch((error) => {
    if (!stopping) logger.error(`[worker] start-up step failed: ${describeErrorBriefly(error)}`);
  });

  runner.promise.then(
    () => {
      if (!stopping) {
        logger.error("[worker] graphile-worker stopped on its own");
        void exit(1, true);
      }
    },
    (error) => {
      if (!stopping) {
        logger.error(`[worker] graphile-worker failed: ${describeError(error)}`);
        void exit(1, true);
      }
    },
  );
  return new Promise<never>(() => {});
}
