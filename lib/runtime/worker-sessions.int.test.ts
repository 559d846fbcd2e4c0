// The worker process's sessions commit without waiting for the WAL flush (WORKER_SYNCHRONOUS_COMMIT,
// default off); the web process's pools keep the server's synchronous commits.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { sql as drizzleSql } from "drizzle-orm";
import { getAuthSql, getDb, getIngestSql, getSql } from "@/db";
import { configFrom } from "@/lib/config/config";
import { useTestDatabase } from "@/test/db";

const database = useTestDatabase();
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function startWorker(env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "test/fixtures/worker-with-test-tasks.ts"], {
    env: { ...process.env, DATABASE_URL: database.url(), WORKER_CONCURRENCY: "2", ...env },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.add(child);
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

/** What each of a worker's pools reported (synchronous_commit, and plan_cache_mode with `setting`), once its job ran. */
async function reportedByWorker(env: Record<string, string> = {}, setting: "synchronous_commit" | "plan_cache_mode" = "synchronous_commit"): Promise<Record<string, string>> {
  const sql = getSql();
  await sql`create table if not exists test_session_settings (pool text, synchronous_commit text, plan_cache_mode text)`;
  await sql`truncate test_session_settings`;
  const worker = startWorker(env);
  try {
    await sql`select graphile_worker.add_job('test-report-session-settings', '{}'::json, max_attempts => 1)`;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      const rows = await sql<{ pool: string; value: string }[]>`select pool, ${sql(setting)} as value from test_session_settings`;
      if (rows.length === 3) return Object.fromEntries(rows.map((row) => [row.pool, row.value]));
    }
    throw new Error("the worker never ran the job");
  } finally {
    await stop(worker);
  }
}

describe("worker sessions", () => {
  it("commit asynchronously in every pool of the worker process by default", { timeout: 60_000 }, async () => {
    expect(await reportedByWorker()).toEqual({ "app sql": "off", "app drizzle": "off", "graphile-worker": "off" });
  });

  it("follow WORKER_SYNCHRONOUS_COMMIT", { timeout: 60_000 }, async () => {
    expect(await reportedByWorker({ WORKER_SYNCHRONOUS_COMMIT: "on" })).toEqual({ "app sql": "on", "app drizzle": "on", "graphile-worker": "on" });
  });

  it("leave the web process's pools (ingest, REST and dashboard, sign-in) committing synchronously", async () => {
    const setting = async (sql: ReturnType<typeof getSql>) => (await sql<{ value: string }[]>`select current_setting('synchronous_commit') as value`)[0]!.value;
    const [drizzleRow] = (await getDb().execute(drizzleSql`select current_setting('synchronous_commit') as value`)) as unknown as { value: string }[];
    expect({
      sql: await setting(getSql()),
      drizzle: drizzleRow!.value,
      ingest: await setting(getIngestSql({ max: 1, statementTimeoutMs: 5_000 })),
      auth: await setting(getAuthSql()),
    }).toEqual({ sql: "on", drizzle: "on", ingest: "on", auth: "on" });
  });

  it("use generic plans in every pool of the worker process by default, as HOT_PATH_PLAN_CACHE_MODE says", { timeout: 90_000 }, async () => {
    const generic = "force_generic_plan";
    expect(await reportedByWorker({}, "plan_cache_mode")).toEqual({ "app sql": generic, "app drizzle": generic, "graphile-worker": generic });
    expect(await reportedByWorker({ HOT_PATH_PLAN_CACHE_MODE: "auto" }, "plan_cache_mode")).toEqual({ "app sql": "auto", "app drizzle": "auto", "graphile-worker": "auto" });
  });

  it("give ingest's pool generic plans and leave the dashboard/API and sign-in pools planning for their values", async () => {
    const setting = async (sql: ReturnType<typeof getSql>) => (await sql<{ value: string }[]>`select current_setting('plan_cache_mode') as value`)[0]!.value;
    expect({
      sql: await setting(getSql()),
      ingest: await setting(getIngestSql({ max: 1, statementTimeoutMs: 5_000 })),
      auth: await setting(getAuthSql()),
    }).toEqual({ sql: "auto", ingest: "force_generic_plan", auth: "auto" });
    expect(() => configFrom({ HOT_PATH_PLAN_CACHE_MODE: "sometimes" }).HOT_PATH_PLAN_CACHE_MODE).toThrow(/HOT_PATH_PLAN_CACHE_MODE/);
  });

  it("refuse a WORKER_SYNCHRONOUS_COMMIT PostgreSQL would not take", () => {
    expect(configFrom({}).WORKER_SYNCHRONOUS_COMMIT).toBe("off");
    expect(configFrom({ WORKER_SYNCHRONOUS_COMMIT: "remote_write" }).WORKER_SYNCHRONOUS_COMMIT).toBe("remote_write");
    expect(() => configFrom({ WORKER_SYNCHRONOUS_COMMIT: "maybe" }).WORKER_SYNCHRONOUS_COMMIT).toThrow(/WORKER_SYNCHRONOUS_COMMIT/);
  });
});
