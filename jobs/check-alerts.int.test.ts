// The check-alerts task as the worker runs it: queued like a cron tick, run by graphile-worker with the
// worker's task list, its mail sent by the send-mail job in the same run.
import { spawn } from "node:child_process";
import { sql } from "drizzle-orm";
import { parseCrontab } from "graphile-worker";
import { describe, expect, it } from "vitest";
import { getDb, getSql } from "@/db";
import { listOpenIncidents } from "@/lib/alerts/list-open-incidents";
import { alertingEndpointFixture, insertDelivery, later, minutes, runDueJobs } from "@/test/alert-fixtures";
import { listMails } from "@/lib/mail/list-mails";
import { captureLogs } from "@/test/captured-logs";
import { useTestDatabase } from "@/test/db";
import { crontab } from "./crontab";
import { taskList } from "./index";

const database = useTestDatabase();

describe("the worker checks alerts every minute", () => {
  it("schedules check-alerts on every minute, once per tick, and knows the task", () => {
    const items = parseCrontab(crontab).filter((entry) => entry.task === "check-alerts");
    expect(items).toHaveLength(1);
    const [item] = items;
    expect(item!.task).toBe("check-alerts");
    expect(item!.options.maxAttempts).toBe(1);
    for (const digest of [{ min: 0, hour: 0, date: 1, month: 1, dow: 0 }, { min: 37, hour: 13, date: 17, month: 6, dow: 3 }]) {
      expect(item!.match(digest)).toBe(true);
    }
    expect(Object.keys(taskList)).toEqual(expect.arrayContaining(["check-alerts", "send-mail"]));
  });
});

describe("the worker process registers the check-alerts cron", () => {
  it("records the crontab entry when it starts, then stops on SIGTERM", { timeout: 30_000 }, async () => {
    const worker = spawn(process.execPath, ["--import", "tsx", "jobs/worker.ts"], {
      env: { ...process.env, DATABASE_URL: database.url(), WORKER_CONCURRENCY: "2" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    worker.stdout!.on("data", (chunk) => (output += chunk));
    worker.stderr!.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => worker.once("exit", (code) => resolve(code)));
    try {
      let known: string[] = [];
      for (let tries = 0; tries < 200 && !known.includes("check-alerts"); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        known = (await getSql()`select identifier from graphile_worker._private_known_crontabs`).map((row) => row.identifier as string);
      }
      expect(known, output).toContain("check-alerts");
    } finally {
      worker.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});

describe("a check-alerts job opens the incident and its mail goes out in the same worker run", () => {
  it("leaves an open incident and one stored mail", async () => {
    captureLogs(); // the dev mailbox's "[mail]" line stays out of the test output
    const { endpoint, ctx, organizationId } = await alertingEndpointFixture({ thresholdSeconds: 60 });
    await insertDelivery({ organizationId, endpointId: endpoint.id, status: "pending", receivedAt: later(new Date(), -minutes(5)) });
    await getDb().execute(sql`select graphile_worker.add_job('check-alerts', '{}'::json)`);
    await runDueJobs();
    expect(await listOpenIncidents({ ctx })).toMatchObject([{ kind: "pending_age", endpointId: endpoint.id }]);
    expect(await listMails({ ctx, input: { viewerEmail: "someone@example.test" } })).toMatchObject([{ status: "logged" }]);
  });
});
