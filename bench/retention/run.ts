// bench/retention: what the retention sweep costs ingest, and how long it takes over a million rows.
// The product runs as deployed — a fresh database, migrations, the Next.js web server and the worker
// (with its cron), each a process of its own, settings at their defaults — with a destination
// answering 200. Org "Archive" holds BENCH_ROWS (1,000,000) settled deliveries 40–100 days old, one in
// four with attempts, seeded in SQL; it keeps 365 days, so none has expired. Org "Live" is sent
// BENCH_RATE signed webhooks a second (autocannon at a fixed rate, bench/neighbours/flood.ts, its own
// process). Phases take turns for BENCH_ROUNDS rounds, BENCH_SECONDS each:
//   - no sweep: Archive keeps 365 days (the cron's runs find nothing);
//   - sweep: Archive's retention lowered to 30 days and a run started at once (the same job the cron
//     queues each minute; a run lasts up to RETENTION_RUN_SECONDS, 30, longer than the phase).
//     Raising it back to 365 ends the run at its next statement.
// Then ingest stops, Archive keeps 30 days, and the worker's cron sweeps the rest on its own: the bench
// waits until nothing of Archive is left and reports how long that took, run by run (from the
// worker's log). Prints achieved ingest rate and p99 per phase, their ratios (target: rate with the
// sweep ≥ 0.9× without), rows swept, and CPU by process (PostgreSQL: this database's backends,
// autovacuum included, sampled every second). Asserts nothing.
//   npm run bench:retention   (BENCH_ROWS=1000000, BENCH_RATE=300, BENCH_SECONDS=20, BENCH_ROUNDS=3, BENCH_CONNECTIONS=50,
//                              BENCH_FULL_SWEEP=0 to skip the timed sweep of the rest, BENCH_PORT=n: the web server on n, the destination on n + 1)
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import postgres from "postgres";
import { closeDb, getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { withDatabase } from "@/lib/runtime/database-url";
import { migrateDatabase } from "@/lib/runtime/migrate";
import { SWEEP_LOCK } from "@/lib/retention/apply-retention";
import { createOrganizationFixture } from "@/test/fixtures";
import { startNextServer } from "@/test/next-server";
import { seedSettledDeliveries } from "./seed";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RATE = Number(process.env.BENCH_RATE ?? 300);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const FULL_SWEEP = process.env.BENCH_FULL_SWEEP !== "0";
const PORT = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : undefined;

interface Ingest { requests: number; perSecond: number; errors: number; timeouts: number; statusCodes: Record<string, { count: number }>; p50: number; p99: number }
interface Cpu { seconds: number; web: number; worker: number; database: number; machine: number }
interface Phase { round: number; name: string; ingest: Ingest; swept: number; cpu: Cpu }

const CLOCK_TICKS = 100; // USER_HZ on Linux
/** CPU seconds (user + system) a process has used so far, from /proc; null once it is gone. */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
function machineBusySeconds(): number {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
  return (fields.reduce((sum, n) => sum + n, 0) - fields[3]! - fields[4]!) / CLOCK_TICKS;
}

/**
 * CPU used while `work` runs: the web server, the worker, the machine, and this database's backends —
 * sampled every second, so short-lived ones (autovacuum workers, new connections) count too.
 */
async function measuringCpu<T>(pids: { web?: number; worker?: number }, databaseName: string, work: () => Promise<T>): Promise<{ result: T; cpu: Cpu }> {
  const backends = async () => (await getSql()<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${databaseName}`).map((r) => r.pid);
  const start = new Map<number, number>();
  for (const pid of await backends()) start.set(pid, cpuSeconds(pid) ?? 0);
  const last = new Map(start);
  const sample = async () => {
    for (const pid of await backends()) {
      const used = cpuSeconds(pid);
      if (used !== null) last.set(pid, used);
    }
  };
  const [web0, worker0, machine0, t0] = [cpuSeconds(pids.web) ?? 0, cpuSeconds(pids.worker) ?? 0, machineBusySeconds(), performance.now()];
  const sampler = setInterval(() => void sample().catch(() => {}), 1_000);
  try {
    const result = await work();
    await sample();
    let database = 0;
    for (const [pid, used] of last) database += used - (start.get(pid) ?? 0);
    return {
      result,
      cpu: { seconds: (performance.now() - t0) / 1000, web: (cpuSeconds(pids.web) ?? 0) - web0, worker: (cpuSeconds(pids.worker) ?? 0) - worker0, database, machine: machineBusySeconds() - machine0 },
    };
  } finally {
    clearInterval(sampler);
  }
}

/** Live's destination: answers 200 at once. */
async function startDestination() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end("ok"));
  });
  await new Promise<void>((resolve) => server.listen(PORT ? PORT + 1 : 0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

interface SweepRun { at: number; deliveries: number; seconds: number }

/** The worker as `npm start` runs it; its apply-retention log lines are collected (the rest is dropped). */
function startWorker(databaseUrl: string): ChildProcess & { exited: Promise<void>; runs: SweepRun[] } {
  const child = spawn(process.execPath, ["--import", "tsx", "jobs/worker.ts"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, INBOX_ALLOW_PRIVATE_DESTINATIONS: "true", DELIVERY_LOG: "problems" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const runs: SweepRun[] = [];
  let pending = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8");
    const lines = pending.split("\n");
    pending = lines.pop()!;
    for (const line of lines) {
      const message = line.startsWith("{") ? String((JSON.parse(line) as { msg?: string }).msg) : line; // the logger's JSON lines
      const match = /^\[apply-retention\] .*?: (\d+) deliveries .* in ([\d.]+) s/.exec(message);
      if (match) runs.push({ at: performance.now(), deliveries: Number(match[1]), seconds: Number(match[2]) });
    }
  });
  return Object.assign(child, { runs, exited: new Promise<void>((resolve) => child.on("exit", () => resolve())) });
}

/** Live's webhooks at RATE a second for `seconds`, from bench/neighbours/flood.ts in its own process. */
function ingest(url: string, secret: string, seconds: number): Promise<Ingest> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/neighbours/flood.ts"], {
      env: { ...process.env, FLOOD_URL: url, FLOOD_SECRET: secret, FLOOD_SECONDS: String(seconds), FLOOD_CONNECTIONS: String(CONNECTIONS), FLOOD_RATE: String(RATE) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1)!)) : reject(new Error(`ingest load exited with ${code}`))));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main() {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const databaseName = `inbox_bench_retention_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${databaseName}"`);
  const databaseUrl = withDatabase(adminUrl, databaseName);
  process.env.DATABASE_URL = databaseUrl;
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  // The seed's statements and index builds outlast the pool's statement timeout.
  const seedSql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  const destination = await startDestination();
  let server: Awaited<ReturnType<typeof startNextServer>> | undefined;
  let worker: ReturnType<typeof startWorker> | undefined;
  try {
    await migrateDatabase(databaseUrl);
    const archive = await createOrganizationFixture("Archive");
    const live = await createOrganizationFixture("Live");
    const archiveEndpoint = await createEndpoint({ ctx: archive.ctx, input: { name: "archive", provider: "none", destinationUrl: destination.url } });
    const liveEndpoint = await createEndpoint({ ctx: live.ctx, input: { name: "live", provider: "standard-webhooks", destinationUrl: destination.url } });
    const setRetention = (days: number) => getSql()`update organizations set retention_days = ${days} where id = ${archive.organizationId}`;
    await setRetention(365);
    const archiveLeft = async () => (await getSql()<{ n: number }[]>`select count(*)::int as n from deliveries where organization_id = ${archive.organizationId}`)[0]!.n;
    const archiveEmpty = async () => !(await getSql()`select 1 from deliveries where organization_id = ${archive.organizationId} limit 1`).length;
    // A run holds the sweep's advisory lock (lib/retention/apply-retention.ts, a bigint key from hashtext):
    // that key alone, since the worker's other passes (vacuum-own-tables, purges) take advisory locks too.
    const sweeping = async () =>
      (await getSql()`
        select 1 from pg_locks
        where locktype = 'advisory' and granted and objsubid = 1
          and objid::bigint = (hashtext(${SWEEP_LOCK})::bigint & 4294967295)`).length > 0;

    console.log(`bench/retention: seeding ${ROWS.toLocaleString("en")} settled deliveries 40–100 days old into Archive`);
    const seeded = performance.now();
    const { attempts } = await seedSettledDeliveries(seedSql, { organizationId: archive.organizationId, endpointId: archiveEndpoint.id, count: ROWS, oldestDays: 100, newestDays: 40, log: console.log });
    console.log(`seeded ${ROWS.toLocaleString("en")} deliveries and ${attempts.toLocaleString("en")} attempts in ${((performance.now() - seeded) / 1000).toFixed(0)} s`);

    // Live may send RATE a second: its own ingest rate limit (120/s per web process) is not what is measured.
    server = await startNextServer({ databaseUrl, port: PORT, env: { AUTH_SECRET: process.env.AUTH_SECRET ?? "bench-auth-secret", ORG_INGEST_RATE: String(RATE * 10) } });
    worker = startWorker(databaseUrl);
    const pids = { web: server.child.pid, worker: worker.pid };
    const liveUrl = `${server.url}/in/${liveEndpoint.id}`;
    console.log(`Live sends ${RATE} signed req/s on ${CONNECTIONS} connections, ${SECONDS} s a phase, ${ROUNDS} rounds; web server, worker, PostgreSQL and load generator on this machine`);
    await ingest(liveUrl, liveEndpoint.secret!, 5); // warm-up: first compiles, pools fill

    const phases: Phase[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await setRetention(365);
      await sleep(2_000); // a run in progress ends at its next statement
      let before = await archiveLeft();
      const quiet = await measuringCpu(pids, databaseName, () => ingest(liveUrl, liveEndpoint.secret!, SECONDS));
      phases.push({ round, name: "no sweep", ingest: quiet.result, swept: before - (await archiveLeft()), cpu: quiet.cpu });

      // A run still going (the cron's) would make the job below find the lock taken and do nothing.
      while (await sweeping()) await sleep(200);
      await setRetention(30);
      await getSql()`select graphile_worker.add_job('apply-retention', '{}'::json)`;
      for (let i = 0; i < 100 && !(await sweeping()); i++) await sleep(100); // the run has begun
      before = await archiveLeft();
      const swept = await measuringCpu(pids, databaseName, () => ingest(liveUrl, liveEndpoint.secret!, SECONDS));
      phases.push({ round, name: "sweep", ingest: swept.result, swept: before - (await archiveLeft()), cpu: swept.cpu });
    }

    console.log("\n| round | phase | Live offered/s | Live achieved/s | Live 200 | other (status, error, timeout) | p50 ms | p99 ms | Archive rows swept | rows/s | web | worker | PostgreSQL (this db) | machine busy (of 2 cores) |");
    console.log("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const p of phases) {
      const ok = p.ingest.statusCodes["200"]?.count ?? 0;
      const cores = (x: number) => (x / p.cpu.seconds).toFixed(2);
      console.log(`| ${p.round} | ${p.name} | ${RATE} | ${p.ingest.perSecond.toFixed(0)} | ${ok} | ${p.ingest.requests - ok + p.ingest.errors} | ${p.ingest.p50} | ${p.ingest.p99} | ${p.swept.toLocaleString("en")} | ${(p.swept / p.cpu.seconds).toFixed(0)} | ${cores(p.cpu.web)} | ${cores(p.cpu.worker)} | ${cores(p.cpu.database)} | ${cores(p.cpu.machine)} |`);
    }
    const of = (name: string, pick: (p: Phase) => number) => median(phases.filter((p) => p.name === name).map(pick));
    const [rateQuiet, rateSweep] = [of("no sweep", (p) => p.ingest.perSecond), of("sweep", (p) => p.ingest.perSecond)];
    const [p99Quiet, p99Sweep] = [of("no sweep", (p) => p.ingest.p99), of("sweep", (p) => p.ingest.p99)];
    const rounds = phases.filter((p) => p.name === "sweep").map((p) => {
      const quiet = phases.find((q) => q.round === p.round && q.name === "no sweep")!;
      return `${(p.ingest.perSecond / quiet.ingest.perSecond).toFixed(2)}× / p99 ${(p.ingest.p99 / quiet.ingest.p99).toFixed(2)}×`;
    });
    console.log(`\nLive achieved rate with the sweep / without: ${(rateSweep / rateQuiet).toFixed(2)}× (medians ${rateSweep.toFixed(0)} / ${rateQuiet.toFixed(0)} req/s; target ≥ 0.9×)`);
    console.log(`Live p99 with the sweep / without: ${(p99Sweep / p99Quiet).toFixed(2)}× (medians ${p99Sweep} / ${p99Quiet} ms); per round: ${rounds.join(", ")}`);
    const total = (name: string, pick: (p: Phase) => number) => phases.filter((p) => p.name === name).reduce((sum, p) => sum + pick(p), 0);
    const sweptRows = total("sweep", (p) => p.swept);
    const sweptSeconds = total("sweep", (p) => p.cpu.seconds);
    const dbCores = (name: string) => total(name, (p) => p.cpu.database) / total(name, (p) => p.cpu.seconds);
    console.log(`sweep beside ingest: ${sweptRows.toLocaleString("en")} rows in ${sweptSeconds.toFixed(0)} s (${(sweptRows / sweptSeconds).toFixed(0)}/s); this database's backends ${dbCores("sweep").toFixed(2)} cores with it, ${dbCores("no sweep").toFixed(2)} without`);

    if (FULL_SWEEP && (await archiveLeft()) > 0) {
      await setRetention(365);
      while (await sweeping()) await sleep(500); // the last phase's run ends at its next statement
      const left = await archiveLeft();
      const runsBefore = worker.runs.length;
      await setRetention(30);
      console.log(`\nthe rest of Archive (${left.toLocaleString("en")} deliveries) swept by the worker's cron alone, retention 30 days, no ingest:`);
      const full = await measuringCpu(pids, databaseName, async () => {
        while (!(await archiveEmpty())) await sleep(5_000);
      });
      const runs = worker.runs.slice(runsBefore);
      for (const run of runs) console.log(`  run: ${run.deliveries.toLocaleString("en")} deliveries in ${run.seconds} s`);
      const active = runs.reduce((sum, run) => sum + run.seconds, 0);
      console.log(`${left.toLocaleString("en")} deliveries in ${(full.cpu.seconds / 60).toFixed(1)} min wall (cron every minute), ${runs.length} runs, ${active.toFixed(0)} s of runs → ${(left / active).toFixed(0)}/s while running, ${((left / full.cpu.seconds) * 60).toLocaleString("en", { maximumFractionDigits: 0 })} a minute`);
      console.log(`  → 1,000,000 settled deliveries take about ${((1_000_000 / left) * (full.cpu.seconds / 60)).toFixed(0)} min at the defaults`);
      const cores = (x: number) => (x / full.cpu.seconds).toFixed(2);
      console.log(`  CPU meanwhile: PostgreSQL (this db) ${cores(full.cpu.database)} cores (${((full.cpu.database / left) * 1e6).toFixed(0)} ms per 1,000 deliveries, autovacuum included), worker ${cores(full.cpu.worker)}, machine ${cores(full.cpu.machine)} of 2`);
      const [{ n: orphans }] = await getSql()`select count(*)::int as n from attempts where organization_id = ${archive.organizationId}`;
      console.log(`  Archive's attempts left: ${orphans} (they go with their deliveries)`);
    }
    console.log(`\nmachine: load average ${loadavg().map((n) => n.toFixed(1)).join(" ")}`);
  } finally {
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill("SIGTERM");
    await worker?.exited;
    await server?.stop();
    await destination.close();
    await seedSql.end();
    await closeDb();
    await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
