// The check-alerts task as the worker runs it: queued like a cron tick, run by graphile-worker with the
// worker's task list, its mail sent by the send-mail job in the same run.
import { sql } from "drizzle-orm";
import { parseCrontab } from "graphile-worker";
import { describe, expect, it, vi } from "vitest";
import { getDb } from "@/db";
import { listOpenIncidents } from "@/lib/alerts/list-open-incidents";
import { alertingEndpointFixture, insertDelivery, later, minutes, runDueJobs } from "@/lib/alerts/test-support";
import { listMails } from "@/lib/mail/list-mails";
import { useTestDatabase } from "@/test/db";
import { crontab } from "./crontab";
import { taskList } from "./index";

useTestDatabase();

describe("the worker checks alerts every minute", () => {
  it("schedules check-alerts on every minute, once per tick, and knows the task", () => {
    const [item, ...others] = parseCrontab(crontab);
    expect(others).toEqual([]);
    expect(item!.task).toBe("check-alerts");
    expect(item!.options.maxAttempts).toBe(1);
    for (const digest of [{ min: 0, hour: 0, date: 1, month: 1, dow: 0 }, { min: 37, hour: 13, date: 17, month: 6, dow: 3 }]) {
      expect(item!.match(digest)).toBe(true);
    }
    expect(Object.keys(taskList)).toEqual(expect.arrayContaining(["check-alerts", "send-mail"]));
  });
});

describe("a check-alerts job opens the incident and its mail goes out in the same worker run", () => {
  it("leaves an open incident and one stored mail", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const { endpoint, ctx, organizationId } = await alertingEndpointFixture({ thresholdSeconds: 60 });
    await insertDelivery({ organizationId, endpointId: endpoint.id, status: "pending", receivedAt: later(new Date(), -minutes(5)) });
    await getDb().execute(sql`select graphile_worker.add_job('check-alerts', '{}'::json)`);
    await runDueJobs();
    expect(await listOpenIncidents({ ctx })).toMatchObject([{ kind: "pending_age", endpointId: endpoint.id }]);
    expect(await listMails({ ctx, input: {} })).toMatchObject([{ status: "logged" }]);
  });
});
