// The worker process (`npm run start:worker`; `npm start` runs it beside the web server).
import { getSql, setProcessStatementTimeoutMs } from "@/db";
import { config, stopOnInvalidConfig } from "@/lib/config/config";
import { exitSafelyOnUncaughtErrors, guardConsole } from "@/lib/logging/guard-console";
import { logger } from "@/lib/logging/logger";
import { describeOwnVacuum } from "@/lib/maintenance/vacuum-own-tables";
import { enqueueRaw } from "@/lib/queue/enqueue";
import { jobSpec } from "@/lib/queue/job-registry";
import { runWorker } from "@/lib/runtime/run-worker";
import { crontab } from "./crontab";
import { taskList } from "./index";

stopOnInvalidConfig("worker");
// The dashboard/API pool's statement timeout (db/index.ts) is not for the worker: its purges and
// roll-ups are bounded batches, but a roll-up after a long outage folds everything that piled up.
setProcessStatementTimeoutMs(config().WORKER_STATEMENT_TIMEOUT_MS);

guardConsole();
exitSafelyOnUncaughtErrors("worker");
await runWorker(taskList, {
  crontab,
  // Said once: where autovacuum is off, our tables are ours to vacuum. The first look runs now, not at
  // the next minute, so a fresh database's tables are analysed within seconds of their first traffic.
  onStarted: async () => {
    // The body indexer's chain of passes starts now too, not at the next minute's cron run.
    await enqueueRaw(getSql(), [jobSpec("index-bodies", { after: "" })]);
    const ownVacuum = await describeOwnVacuum();
    if (!ownVacuum) return;
    logger.info(`[worker] ${ownVacuum}`);
    await enqueueRaw(getSql(), [jobSpec("vacuum-own-tables", {})]);
  },
});
