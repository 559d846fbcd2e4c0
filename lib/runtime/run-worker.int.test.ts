// Worker processes for real: heartbeats, recovery after SIGKILL, draining on SIGTERM.
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";

const database = useTestDatabase();
const children = new Set<ChildProcess>();

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function startWorker(entry: string): ChildProcess & { output: () => string } {
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    env: {
      ...process.env,
      DATABASE_URL: database.url(),
      WORKER_CONCURRENCY: "2",
      WORKER_HEARTBEAT_INTERVAL_MS: "200",
      WORKER_STALE_AFTER_MS: "1500",
      WORKER_RELEASE_INTERVAL_MS: "300",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  children.add(child);
  return Object.assign(child, { output: () => output });
}

const withTestTasks = "test/fixtures/worker-with-test-tasks.ts";

async function until<T>(what: string, probe: () => Promise<T | undefined | null | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function poolOf(pid: number): Promise<string | undefined> {
  const [row] = await getSql()`select pool_id from worker_heartbeats where pid = ${pid}`;
  return row?.pool_id;
}

async function addSleepJob(payload: object): Promise<string> {
  const sql = getSql();
  const [job] = await sql`select id from graphile_worker.add_job('test-sleep', ${sql.json(payload as never)}::json)`;
  return job.id;
}

async function jobRow(id: string) {
  const [row] = await getSql()`select locked_by, attempts, last_error from graphile_worker._private_jobs where id = ${id}`;
  return row as { locked_by: string | null; attempts: number; last_error: string | null } | undefined;
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("a SIGKILLed worker's job is released and run by another worker", () => {
  it("removes the dead pool's heartbeat and completes its job", { timeout: 60_000 }, async () => {
    const first = startWorker(withTestTasks);
    const firstPool = await until("the first worker's heartbeat", () => poolOf(first.pid!));
    const jobId = await addSleepJob({ ms: 120_000, firstAttemptOnly: true });
    await until("the job to be locked by the first worker", async () => (await jobRow(jobId))?.locked_by === firstPool);

    first.kill("SIGKILL");
    await exited(first);
    const second = startWorker(withTestTasks);
    const secondPool = await until("the second worker's heartbeat", () => poolOf(second.pid!));
    expect(secondPool).not.toBe(firstPool);

    await until("the job to complete", async () => (await jobRow(jobId)) === undefined);
    const [stale] = await getSql()`select count(*)::int as n from worker_heartbeats where pool_id = ${firstPool}`;
    expect(stale.n).toBe(0);
    expect(second.output()).toContain(firstPool);
    second.kill("SIGTERM");
    expect(await exited(second)).toBe(0);
  });
});

describe("SIGTERM lets the running job finish, then the worker exits 0 and forgets its heartbeat", () => {
  it("completes the in-flight job before exiting", { timeout: 60_000 }, async () => {
    const worker = startWorker(withTestTasks);
    const pool = await until("the worker's heartbeat", () => poolOf(worker.pid!));
    const jobId = await addSleepJob({ ms: 1_500 });
    await until("the job to start", async () => (await jobRow(jobId))?.locked_by === pool);

    worker.kill("SIGTERM");
    expect(await exited(worker)).toBe(0);
    expect(await jobRow(jobId)).toBeUndefined();
    expect(await poolOf(worker.pid!)).toBeUndefined();
  });
});

describe("the production worker entry point records a heartbeat and stops cleanly", () => {
  it("runs jobs/worker.ts", { timeout: 60_000 }, async () => {
    const worker = startWorker("jobs/worker.ts");
    await until("the worker's heartbeat", () => poolOf(worker.pid!));
    // This server runs with autovacuum off (as CI's does): the worker says once that it looks after its tables.
    await until("the worker's note on vacuuming", async () => worker.output().includes("autovacuum is off on this PostgreSQL server: the worker vacuums and analyses its own"));
    worker.kill("SIGTERM");
    expect(await exited(worker)).toBe(0);
    expect(await poolOf(worker.pid!)).toBeUndefined();
  });
});

describe("a worker that cannot record its heartbeat exits before others may count it dead", () => {
  it("exits 1 at half the staleness threshold, and its job runs again on the next worker", { timeout: 180_000 }, async () => {
    const sql = getSql();
    const first = startWorker(withTestTasks);
    // A worker process's start (tsx compiling the tasks) passed 20 s beside a busy CI run.
    const poolId = await until("the first worker's heartbeat", () => poolOf(first.pid!), 45_000);
    const jobId = await addSleepJob({ ms: 30_000, firstAttemptOnly: true });
    await until("the job locked by the first worker", async () => (await jobRow(jobId))?.locked_by === poolId);

    // The database stays up for everyone else; only this pool's heartbeat cannot be written.
    await sql.unsafe(`
      create function refuse_heartbeat() returns trigger language plpgsql as $$
      begin
        if new.pool_id = '${poolId}' then raise exception 'heartbeat refused by the test'; end if;
        return new;
      end $$;
      create trigger refuse_heartbeat before insert or update on worker_heartbeats
        for each row execute function refuse_heartbeat()`);
    try {
      expect(await exited(first)).toBe(1);
      expect(first.output()).toMatch(/no heartbeat for \d+ ms: exiting/);
      expect((await jobRow(jobId))?.locked_by).toBe(poolId); // still locked: the exit gave nothing back itself
    } finally {
      await sql.unsafe(`drop trigger refuse_heartbeat on worker_heartbeats; drop function refuse_heartbeat()`);
    }

    const second = startWorker(withTestTasks);
    // The second worker's start as the first's (45 s), then the released job's run.
    await until("the job run again and completed by the second worker", async () => (await jobRow(jobId)) === undefined, 60_000);
    second.kill("SIGTERM");
    expect(await exited(second)).toBe(0);
  });
});
