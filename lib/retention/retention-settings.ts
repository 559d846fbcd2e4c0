// The retention sweep's bounds, from the environment (README "Environment"). Every statement deletes
// at most a batch; a run stops at its time or row budget and the next cron run goes on from there.
import { positiveIntegerEnv, positiveNumberEnv } from "@/lib/env-number";

export interface RetentionSettings {
  /** Rows one statement deletes at most (RETENTION_BATCH_SIZE, default 1,000). */
  batchSize: number;
  /** How long one run may go on before it stops between two batches (RETENTION_RUN_SECONDS, default 30; the cron runs every minute). */
  runMs: number;
  /** Rows one run deletes at most, over every organization and kind (RETENTION_ROWS_PER_RUN, default 200,000). */
  rowsPerRun: number;
  /** After a batch that deleted rows, the sweep rests this many times as long as the batch took (RETENTION_PAUSE_FACTOR, default 1). */
  pauseFactor: number;
}

export function retentionSettings(env: NodeJS.ProcessEnv = process.env): RetentionSettings {
  const pause = Number(env.RETENTION_PAUSE_FACTOR);
  return {
    batchSize: positiveIntegerEnv(env.RETENTION_BATCH_SIZE, 1_000),
    runMs: positiveNumberEnv(env.RETENTION_RUN_SECONDS, 30) * 1000,
    rowsPerRun: positiveIntegerEnv(env.RETENTION_ROWS_PER_RUN, 200_000),
    pauseFactor: env.RETENTION_PAUSE_FACTOR && Number.isFinite(pause) && pause >= 0 ? pause : 1,
  };
}
