import { parseCrontab } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { JOBS, type JobName } from "@/lib/queue/job-registry";
import { crontab } from "./crontab";
import { taskList } from "./index";

describe("the worker's tasks and crontab come from the job registry", () => {
  it("has one task for every registered job, filed under its identifier", () => {
    expect(Object.keys(taskList).sort()).toEqual(Object.keys(JOBS).sort());
    for (const [name, task] of Object.entries(taskList)) expect((task as { job?: string }).job).toBe(name);
  });

  it("schedules each job that has a schedule, once, with its attempts", () => {
    const scheduled = (Object.keys(JOBS) as JobName[]).filter((name) => "schedule" in JOBS[name]);
    expect(scheduled).toContain("check-alerts");
    const items = parseCrontab(crontab);
    expect(items.map((item) => item.task).sort()).toEqual(scheduled.sort());
    for (const item of items) expect(item.options.maxAttempts).toBe(JOBS[item.task as JobName].maxAttempts);
  });
});
