// The worker process (`npm run start:worker`; `npm start` runs it beside the web server).
import { runWorker } from "@/lib/runtime/run-worker";
import { crontab } from "./crontab";
import { taskList } from "./index";

await runWorker(taskList, { crontab });
