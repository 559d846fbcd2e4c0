// Every task the worker runs, by identifier (= its file name in jobs/). A plain map: add a line per task.
import type { TaskList } from "graphile-worker";

export const taskList: TaskList = {};
