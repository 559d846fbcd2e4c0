// The worker process (`npm run start:worker`; `npm start` runs it beside the web server).
import { exitSafelyOnUncaughtErrors, guardConsole } from "@/lib/logging/guard-console";
import { runWorker } from "@/lib/runtime/run-worker";
import { crontab } from "./crontab";
import { taskList } from "./index";

// The dashboard/API pool's statement timeout (db/index.ts) is not for the worker: its purges and
// roll-ups are bounded batches, but a roll-up after a long outage folds everything that piled up.
process.env.DATABASE_STATEMENT_TIMEOUT_MS = process.env.WORKER_STATEMENT_TIMEOUT_MS ?? "0";

guardConsole();
exitSafelyOnUncaughtErrors("worker");
await runWorker(taskList, { crontab });
