// The worker process (`npm run start:worker`; `npm start` runs it beside the web server).
import { runWorker } from "@/lib/runtime/run-worker";
import { taskList } from "./index";

await runWorker(taskList);
