// bench/neighbours: does one organization's flood change what another gets? The product runs as
// `npm start` runs it — a fresh database, migrations, the Next.js web server and the worker, each a
// process of its own, every setting at its default — with a local destination answering 200. Org B
// sends 100 valid signed requests a second; first with org A idle, then while A floods valid signed
// requests at full speed on 50 connections (bench/neighbours/flood.ts, its own process). Prints B's
// failures and latency in each phase and A's status codes; the target is no failure for B and B's
// p99 under the flood ≤ 2× its p99 with A idle. Asserts nothing. The phases take turns for a few
// rounds and the ratio is of the medians: other work on this machine drifts from one stretch to the next.
//   npm run bench:neighbours     (BENCH_SECONDS=10 per phase, BENCH_ROUNDS=3, BENCH_B_RATE=100, FLOOD_CONNECTIONS=50,
//                                 FLOOD_RATE=n: A sends n req/s instead of full speed; BENCH_A_PAUSED=1: A's endpoint paused,
//                                 BENCH_LOG_SLOW_MS=n: log this database's slow statements and lock waits)
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg } from "node:os";
import postgres from "postgres";
import { Webhook } from "standardwebhooks";
import { closeDb, getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { withDatabase } from "@/lib/runtime/database-url";
import { migrateDatabase } from "@/lib/runtime/migrate";
import { createOrganizationFixture } from "@/test/fixtures";
import { startNextServer } from "@/test/next-server";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const B_RATE = Number(process.env.BENCH_B_RATE ?? 100);
const CONNECTIONS = Number(process.env.FLOOD_CONNECTIONS ?? 50);
/** B's first requests of each phase (the flood ramping up, connections opening) are sent but not counted. */
const SETTLE_SECONDS = 2;

interface Phase { name: string; sent: number; ok: number; failures: Map<string, number>; p50: number; p99: number; max: number }
interface Flood { requests: number; perSecond: number; errors: number; timeouts: number; statusCodes: Record<string, { count: number }>; p50: number; p99: number; cpuSeconds: number }

const CLOCK_TICKS = 100; // USER_HZ on Linux
/** CPU seconds (user + system) a process has used so far, from /proc; 0 when it is gone. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
/** CPU seconds the whole machine has spent busy (all cores), from /proc/stat. */
function machineBusySeconds(): number {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).map(Number);
  const idle = fields[3]! + fields[4]!;
  return (fields.reduce((sum, n) => sum + n, 0) - idle) / CLOCK_TICKS;
}

/** Where the CPU went during a phase: our processes, this database's backends, and everything else on the machine. */
interface CpuUse { at: number; web: number; worker: number; database: number; bench: number; machine: number }
async function cpuSnapshot(pids: { web?: number; worker?: number }, databaseName: string): Promise<CpuUse> {
  const backends = await getSql()<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${databaseName}`;
  const usage = process.cpuUsage();
  return {
    at: performance.now() / 1000, web: cpuSeconds(pids.web), worker: cpuSeconds(pids.worker), database: backends.reduce((sum, { pid }) => sum + cpuSeconds(pid), 0),
    bench: (usage.user + usage.system) / 1e6, machine: machineBusySeconds(),
  };
}
const cpuDelta = (a: CpuUse, b: CpuUse): CpuUse => ({ at: b.at - a.at, web: b.web - a.web, worker: b.worker - a.worker, database: b.database - a.database, bench: b.bench - a.bench, machine: b.machine - a.machine });

/** The tenants' destination: answers 200 at once. */
async function startDestination() {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.end("ok"));
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function startWorker(databaseUrl: string): ChildProcess & { exited: Promise<void> } {
  const child = spawn(process.execPath, ["--import", "tsx", "jobs/worker.ts"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, INBOX_ALLOW_PRIVATE_DESTINATIONS: "true", DELIVERY_LOG: "problems" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  return Object.assign(child, { exited: new Promise<void>((resolve) => child.on("exit", () => resolve())) });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

/** B's steady sender: one request every 1/B_RATE s on its own schedule (open loop: a slow answer does not delay the next send). */
async function sendSteadily(url: string, secret: string, seconds: number, name: string): Promise<Phase> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const webhook = new Webhook(secret);
  const target = new URL(url);
  const latencies: number[] = [];
  const failures = new Map<string, number>();
  let sent = 0;
  let ok = 0;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  const total = Math.round((seconds + SETTLE_SECONDS) * B_RATE);
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / B_RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const counted = i >= SETTLE_SECONDS * B_RATE;
    const id = `b_${randomBytes(8).toString("hex")}`;
    const body = JSON.stringify({ type: "steady.event", id, pad: "b".repeat(900) });
    const now = new Date();
    const headers = {
      "content-type": "application/json", "content-length": String(Buffer.byteLength(body)), "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": webhook.sign(id, now, body),
    };
    if (counted) sent++;
    const sentAt = performance.now();
    inFlight.push(new Promise<void>((resolve) => {
      const fail = (why: string) => {
        if (counted) failures.set(why, (failures.get(why) ?? 0) + 1);
        resolve();
      };
      const request = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: "POST", headers, agent, timeout: 30_000 }, (response) => {
        response.resume();
        response.on("end", () => {
          if (response.statusCode !== 200) return fail(String(response.statusCode));
          if (counted) {
            ok++;
            latencies.push(performance.now() - sentAt);
          }
          resolve();
        });
      });
      request.on("timeout", () => request.destroy(new Error("timeout")));
      request.on("error", (error) => fail(error.message));
      request.end(body);
    }));
  }
  await Promise.all(inFlight);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { name, sent, ok, failures, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) ?? NaN };
}

function flood(url: string, secret: string, seconds: number): Promise<Flood> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "bench/neighbours/flood.ts"], {
      env: { ...process.env, FLOOD_URL: url, FLOOD_SECRET: secret, FLOOD_SECONDS: String(seconds), FLOOD_CONNECTIONS: String(CONNECTIONS) },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout!.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1)!)) : reject(new Error(`flood exited with ${code}`))));
  });
}

/** Waits until the worker has delivered everything stored, so each phase starts from the same quiet state. */
async function drained(): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const [{ open }] = await getSql()`select count(*)::int as open from deliveries d join endpoints e on e.id = d.endpoint_id where not e.paused and d.status in ('pending', 'delivering')`;
    if (open === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Linux PSI: total µs that some task waited for a CPU. */
function cpuWaitMicros(): number | null {
  try {
    return Number(/some .*total=(\d+)/.exec(readFileSync("/proc/pressure/cpu", "utf8"))![1]);
  } catch {
    return null;
  }
}
function cpuPressure(start: { at: number; waited: number | null }): string {
  const waited = cpuWaitMicros();
  if (waited === null || start.waited === null) return "unknown";
  return `${(((waited - start.waited) / 1000 / (performance.now() - start.at)) * 100).toFixed(0)} %`;
}

const describeFailures = (failures: Map<string, number>) => (failures.size === 0 ? "none" : [...failures].map(([why, n]) => `${n}× ${why}`).join(", "));

async function main() {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const databaseName = `inbox_bench_neighbours_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${databaseName}"`);
  const databaseUrl = withDatabase(adminUrl, databaseName);
  process.env.DATABASE_URL = databaseUrl;
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  const destination = await startDestination();
  let server: Awaited<ReturnType<typeof startNextServer>> | undefined;
  let worker: ReturnType<typeof startWorker> | undefined;
  try {
    await migrateDatabase(databaseUrl);
    // BENCH_LOG_SLOW_MS=n: PostgreSQL logs this database's statements slower than n ms, and lock waits.
    if (process.env.BENCH_LOG_SLOW_MS) {
      await admin.unsafe(`alter database "${databaseName}" set log_min_duration_statement = ${Number(process.env.BENCH_LOG_SLOW_MS)}`);
      await admin.unsafe(`alter database "${databaseName}" set log_lock_waits = on`);
    }
    const endpointOf = async (name: string, paused = false) => {
      const org = await createOrganizationFixture(name);
      return createEndpoint({ ctx: org.ctx, input: { name, provider: "standard-webhooks", destinationUrl: destination.url, paused } });
    };
    // BENCH_A_PAUSED=1: A's deliveries are stored but not delivered (to see what ingest alone costs B, without the worker's share).
    const [a, b] = [await endpointOf("Org A (flooding)", process.env.BENCH_A_PAUSED === "1"), await endpointOf("Org B (steady)")];
    // The web server and the worker with their defaults, as `npm start` runs them.
    server = await startNextServer({ databaseUrl, env: { AUTH_SECRET: process.env.AUTH_SECRET ?? "bench-auth-secret" } });
    worker = startWorker(databaseUrl);
    const [aUrl, bUrl] = [`${server.url}/in/${a.id}`, `${server.url}/in/${b.id}`];
    const pressureAtStart = { at: performance.now(), waited: cpuWaitMicros() };
    console.log(`bench/neighbours: org B sends ${B_RATE} signed req/s; org A idle, then flooding on ${CONNECTIONS} connections; ${SECONDS} s per phase, ${ROUNDS} rounds`);
    console.log(`(ORG_INGEST_RATE=${process.env.ORG_INGEST_RATE ?? "default"}, ORG_INGEST_BURST=${process.env.ORG_INGEST_BURST ?? "default"}; web server, worker, PostgreSQL and both senders on this machine)`);
    await sendSteadily(bUrl, b.secret!, 3, "warm-up"); // first compiles, pools fill
    await drained();

    const rows: Array<{ round: number; idle: Phase; busy: Phase; flood: Flood; cpu: { idle: CpuUse; busy: CpuUse } }> = [];
    const pids = { web: server.child.pid, worker: worker.pid };
    for (let round = 1; round <= ROUNDS; round++) {
      let before = await cpuSnapshot(pids, databaseName);
      const idle = await sendSteadily(bUrl, b.secret!, SECONDS, "A idle");
      const idleCpu = cpuDelta(before, await cpuSnapshot(pids, databaseName));
      await drained();
      const flooding = flood(aUrl, a.secret!, SECONDS + SETTLE_SECONDS + 1);
      await new Promise((resolve) => setTimeout(resolve, 500)); // the flood's process starts and connects
      before = await cpuSnapshot(pids, databaseName);
      const busy = await sendSteadily(bUrl, b.secret!, SECONDS, "A flooding");
      const busyCpu = cpuDelta(before, await cpuSnapshot(pids, databaseName));
      const floodResult = await flooding;
      await drained();
      rows.push({ round, idle, busy, flood: floodResult, cpu: { idle: idleCpu, busy: busyCpu } });
    }

    console.log("\n| round | phase | B sent | B 200 | B failures | B p50 ms | B p99 ms | B max ms |");
    console.log("| ---: | --- | ---: | ---: | --- | ---: | ---: | ---: |");
    for (const { round, idle, busy } of rows) {
      for (const p of [idle, busy]) console.log(`| ${round} | ${p.name} | ${p.sent} | ${p.ok} | ${describeFailures(p.failures)} | ${p.p50.toFixed(1)} | ${p.p99.toFixed(1)} | ${p.max.toFixed(1)} |`);
    }
    console.log("\n| round | A requests | A req/s | A status codes | A errors | A p50 ms | A p99 ms |");
    console.log("| ---: | ---: | ---: | --- | ---: | ---: | ---: |");
    for (const { round, flood: f } of rows) {
      const codes = Object.entries(f.statusCodes).map(([code, { count }]) => `${code}: ${count}`).join(", ");
      console.log(`| ${round} | ${f.requests} | ${f.perSecond.toFixed(0)} | ${codes} | ${f.errors + f.timeouts} | ${f.p50} | ${f.p99} |`);
    }
    // CPU cores in use on average over each measured phase (its settle seconds included), by whom.
    console.log("\n| round | phase | seconds | web server | worker | PostgreSQL (this db) | bench (B + destination) | everything else on the machine | machine busy (of 2 cores) |");
    console.log("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (const { round, idle, busy, cpu } of rows) {
      for (const [p, c] of [[idle, cpu.idle], [busy, cpu.busy]] as const) {
        const seconds = c.at;
        const ours = c.web + c.worker + c.database + c.bench;
        const cores = (x: number) => (x / seconds).toFixed(2);
        console.log(`| ${round} | ${p.name} | ${seconds.toFixed(1)} | ${cores(c.web)} | ${cores(c.worker)} | ${cores(c.database)} | ${cores(c.bench)} | ${cores(c.machine - ours)} (flood process included) | ${cores(c.machine)} |`);
      }
    }
    console.log(`(the flood process itself used ${rows.map((r) => r.flood.cpuSeconds.toFixed(1)).join(", ")} CPU s per round)`);
    const [{ a_rows, b_rows }] = await getSql()`
      select count(*) filter (where endpoint_id = ${a.id})::int as a_rows, count(*) filter (where endpoint_id = ${b.id})::int as b_rows from deliveries`;
    const bFailures = rows.reduce((sum, r) => sum + r.busy.sent - r.busy.ok + r.idle.sent - r.idle.ok, 0);
    const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
    const [idleP99, busyP99] = [median(rows.map((r) => r.idle.p99)), median(rows.map((r) => r.busy.p99))];
    const [idleP50, busyP50] = [median(rows.map((r) => r.idle.p50)), median(rows.map((r) => r.busy.p50))];
    console.log(`\nB failures in all phases: ${bFailures} (target 0)`);
    console.log(`B medians over rounds: A idle p50 ${idleP50.toFixed(1)} ms, p99 ${idleP99.toFixed(1)} ms; A flooding p50 ${busyP50.toFixed(1)} ms, p99 ${busyP99.toFixed(1)} ms`);
    console.log(`B p99 flooding / idle: ${(busyP99 / idleP99).toFixed(2)}× (target ≤ 2×; per round ${rows.map((r) => `${(r.busy.p99 / r.idle.p99).toFixed(2)}×`).join(", ")})`);
    console.log(`stored: A ${a_rows} deliveries, B ${b_rows} (warm-up and uncounted first seconds included)`);
    console.log(`machine: load average ${loadavg().map((n) => n.toFixed(1)).join(" ")}; CPU pressure over the run ${cpuPressure(pressureAtStart)} (the share of time some task waited for a core)`);
  } finally {
    if (worker && worker.exitCode === null && worker.signalCode === null) worker.kill("SIGTERM");
    await worker?.exited;
    await server?.stop();
    await destination.close();
    await closeDb();
    await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
