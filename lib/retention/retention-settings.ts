// The retention sweep's bounds, from the configuration (lib/config/schema.ts, "Retention"). Every statement
// deletes at most a batch; a run stops at its time or row budget and the next cron run goes on from there.
import { config, type Config } from "@/lib/config/config";

/** The shortest rest after a full batch, in proportion for a partial one (see pauseFactor). */
export const FULL_BATCH_REST_MS = 200;

export interface RetentionSettings {
  /** Rows one statement deletes at most (RETENTION_BATCH_SIZE, default 1,000). */
  batchSize: number;
  /** How long one run may go on before it stops between two batches (RETENTION_RUN_SECONDS, default 45; the cron runs every minute). */
  runMs: number;
  /** Rows one run deletes at most, over every organization and kind (RETENTION_ROWS_PER_RUN, default 200,000). */
  rowsPerRun: number;
  /**
   * After a batch that deleted rows, the sweep rests this many times as long as the batch took, and at
   * least 200 ms after a full batch (less in proportion after a partial one, so many small organizations
   * are not slowed down) (RETENTION_PAUSE_FACTOR, default 2; 0: no rest): a third of one connection's
   * time at most, ~5,000 rows a second on an idle database, fewer as it gets busy. The endpoint purge's
   * measured pace: faster bursts of deletes (and their WAL) stalled other tenants' commits.
   */
  pauseFactor: number;
}

export function retentionSettings(settings: Config = config()): RetentionSettings {
  return {
    batchSize: settings.RETENTION_BATCH_SIZE,
    runMs: settings.RETENTION_RUN_SECONDS * 1000,
    rowsPerRun: settings.RETENTION_ROWS_PER_RUN,
    pauseFactor: settings.RETENTION_PAUSE_FACTOR,
  };
}
