// bench/deliver: how fast the real worker process (jobs/worker.ts, with graphile-worker's batching:
// localQueue + completeJobBatchDelay) drains stored deliveries to a local destination that answers
// 200 at once, and the ack-to-destination latency at idle. Prints its figures; asserts nothing.
//   npx tsx bench/deliver/run.ts     (BENCH_DELIVERIES=20000, BENCH_LATENCY_SAMPLES=300, BENCH_ONLY=<scenario name part>)
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import postgres from "postgres";
import { closeDb, getSql } from "@/db";
import { deliverJobSpec, enqueueRaw } from "@/lib/queue/enqueue";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { newId } from "@/lib/ids";
import { withDatabase } from "@/lib/runtime/database-url";
import { migrateDatabase } from "@/lib/runtime/migrate";
import { createOrganizationFixture } from "@/test/fixtures";

const TOTAL = Number(process.env.BENCH_DELIVERIES ?? 20_000);
const LATENCY_SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 300);
const ONLY = process.env.BENCH_ONLY;

interface Scenario {
  name: string;
  endpoints: number;
  /** DELIVERY_ENDPOINT_CONCURRENCY for the worker. */
  cap: number;
}

const SCENARIOS: Scenario[] = [
  { name: "20 endpoints × 1,000, cap 10 each", endpoints: 20, cap: 10 },
  { name: "1 endpoint, cap 10", endpoints: 1, cap: 10 },
  { name: "1 endpoint, cap 1,000,000 (no cap in effect)", endpoints: 1, cap: 1_000_000 },
];

/** The destination: answers 200 at once, keeps the arrival time of each delivery id. */
async function startDestination() {
  const arrivals = new Map<string, number>();
  let waiter: { id: string; resolve: (at: number) => void } | undefined;
  const server = http.createServer((req, res) => {
    const id = String(req.headers["x-inbox-delivery-id"]);
    const at = performance.now();
    if (!arrivals.has(id)) arrivals.set(id, at);
    req.resume();
    req.on("end", () => res.end("ok"));
    if (waiter?.id === id) waiter.resolve(at);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals,
    /** Resolves with the arrival time of `id` (performance.now()). */
    arrivalOf: (id: string) => new Promise<number>((resolve) => (waiter = { id, resolve })),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

function startWorker(databaseUrl: string, cap: number): ChildProcess & { exited: Promise<void> } {
  const profile = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child = spawn(process.execPath, [...profile, "--import", "tsx", "jobs/worker.ts"], {
    env: { ...process.env, DATABASE_URL: databaseUrl, INBOX_ALLOW_PRIVATE_DESTINATIONS: "true", DELIVERY_LOG: "problems", DELIVERY_ENDPOINT_CONCURRENCY: String(cap) },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return Object.assign(child, { exited });
}

async function stopWorker(worker: ChildProcess & { exited: Promise<void> }) {
  if (worker.exitCode === null && worker.signalCode === null) worker.kill("SIGTERM");
  await worker.exited;
}

const BODY = JSON.stringify({ type: "bench.event", data: { pad: "x".repeat(900) } });

/** Stores `total` deliveries round-robin over the endpoints, rows and jobs in the same transactions (as ingest does). */
async function storeDeliveries(organizationId: string, endpointIds: string[], total: number): Promise<string[]> {
  const ids: string[] = [];
  const chunk = 2_000;
  for (let start = 0; start < total; start += chunk) {
    const rows = Array.from({ length: Math.min(chunk, total - start) }, (_, i) => {
      const id = newId("dlv");
      ids.push(id);
      return { id, endpoint_id: endpointIds[(start + i) % endpointIds.length]! };
    });
    await getSql().begin(async (tx) => {
      await tx.unsafe(
        `insert into deliveries (id, organization_id, endpoint_id, external_id, event_type, headers, body, size_bytes)
         select r.id, $2, r.endpoint_id, r.id, 'bench.event', '{"content-type":"application/json"}'::jsonb, convert_to($3, 'UTF8'), octet_length($3)
         from json_to_recordset($1::text::json) as r(id text, endpoint_id text)`,
        [JSON.stringify(rows), organizationId, BODY],
      );
      await enqueueRaw(tx, rows.map((r) => deliverJobSpec({ deliveryId: r.id, endpointId: r.endpoint_id, trigger: "auto" })));
    });
  }
  return ids;
}

const CLOCK_TICKS = 100; // USER_HZ on Linux

/** CPU seconds (user + system) a process has used so far, from /proc; 0 when it is gone. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}

/** CPU seconds used so far by the database's server processes serving `databaseName`. */
async function databaseCpuSeconds(databaseName: string): Promise<Map<number, number>> {
  const rows = await getSql()<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${databaseName}`;
  return new Map(rows.map((row) => [row.pid, cpuSeconds(row.pid)]));
}

async function deliveredCount(organizationId: string): Promise<number> {
  const [row] = await getSql()`select count(*)::int as n from deliveries where organization_id = ${organizationId} and status = 'delivered'`;
  return row!.n;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function drain(databaseUrl: string, destinationUrl: string, arrivals: Map<string, number>, scenario: Scenario) {
  const org = await createOrganizationFixture(`Bench ${scenario.name}`);
  const endpointIds: string[] = [];
  for (let i = 0; i < scenario.endpoints; i++) {
    endpointIds.push((await createEndpoint({ ctx: org.ctx, input: { name: `bench-${i}`, provider: "none", destinationUrl: destinationUrl } })).id);
  }
  const ids = await storeDeliveries(org.organizationId, endpointIds, TOTAL);
  const before = arrivals.size;
  const databaseName = new URL(databaseUrl).pathname.slice(1);
  const baseline = await databaseCpuSeconds(databaseName); // the bench's own connections, storing
  const started = performance.now();
  const worker = startWorker(databaseUrl, scenario.cap);
  try {
    // Watch the destination (in memory) rather than the database, so the bench adds no load.
    // The worker's server processes live as long as the worker; sample them as they appear.
    const backends = new Map<number, number>();
    const sample = async () => {
      for (const [pid, seconds] of await databaseCpuSeconds(databaseName)) backends.set(pid, seconds);
    };
    while (arrivals.size - before < TOTAL) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (worker.exitCode !== null || worker.signalCode !== null) throw new Error(`the worker exited (${worker.exitCode ?? worker.signalCode}) before delivering everything`);
      if (Math.random() < 0.1) await sample();
    }
    await sample();
    const workerCpu = cpuSeconds(worker.pid!);
    for (;;) {
      const done = await deliveredCount(org.organizationId);
      if (done >= TOTAL) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const finished = performance.now();
    const times = ids.map((id) => arrivals.get(id)!).sort((a, b) => a - b);
    const first = times[0]!;
    const last = times.at(-1)!;
    const databaseCpu = [...backends].reduce((sum, [pid, seconds]) => sum + seconds - (baseline.get(pid) ?? 0), 0);
    return {
      name: scenario.name,
      perSecond: TOTAL / ((last - first) / 1000),
      withStartup: TOTAL / ((finished - started) / 1000),
      seconds: (last - first) / 1000,
      workerCpuMs: (workerCpu * 1000) / TOTAL,
      databaseCpuMs: (databaseCpu * 1000) / TOTAL,
    };
  } finally {
    await stopWorker(worker);
  }
}

async function idleLatency(databaseUrl: string, destination: Awaited<ReturnType<typeof startDestination>>) {
  const org = await createOrganizationFixture("Bench latency");
  const endpoint = await createEndpoint({ ctx: org.ctx, input: { name: "latency", provider: "none", destinationUrl: destination.url } });
  const worker = startWorker(databaseUrl, 10);
  try {
    // Warm up: the worker's first job (connections, keep-alive sockets) is not counted.
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES + 10; i++) {
      const id = newId("dlv");
      const arrived = destination.arrivalOf(id);
      await getSql().begin(async (tx) => {
        await tx`insert into deliveries (id, organization_id, endpoint_id, external_id, headers, body, size_bytes)
          values (${id}, ${org.organizationId}, ${endpoint.id}, ${id}, ${tx.json({ "content-type": "application/json" })}, ${Buffer.from(BODY)}, ${BODY.length})`;
        await enqueueRaw(tx, [deliverJobSpec({ deliveryId: id, endpointId: endpoint.id, trigger: "auto" })]);
      });
      const acked = performance.now(); // ingest answers 200 right after this commit
      const at = await arrived;
      if (i >= 10) latencies.push(at - acked);
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30)); // idle between deliveries
    }
    latencies.sort((a, b) => a - b);
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)! };
  } finally {
    await stopWorker(worker);
  }
}

async function main() {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const databaseName = `inbox_bench_deliver_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${databaseName}"`);
  const databaseUrl = withDatabase(adminUrl, databaseName);
  process.env.DATABASE_URL = databaseUrl;
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  const destination = await startDestination();
  try {
    await migrateDatabase(databaseUrl);
    if (process.env.BENCH_LOG_STATEMENTS) await admin.unsafe(`alter database "${databaseName}" set log_min_duration_statement = 0`);
    if (process.env.BENCH_EXPLAIN_SLOW_MS) {
      await admin.unsafe(`alter database "${databaseName}" set session_preload_libraries = 'auto_explain'`);
      await admin.unsafe(`alter database "${databaseName}" set auto_explain.log_min_duration = ${Number(process.env.BENCH_EXPLAIN_SLOW_MS)}`);
      await admin.unsafe(`alter database "${databaseName}" set auto_explain.log_analyze = on`);
      await admin.unsafe(`alter database "${databaseName}" set auto_explain.log_nested_statements = on`);
    }
    // What the search indexes cost the worker: every state change rewrites the row and all its index entries.
    if (process.env.BENCH_DROP_SEARCH_INDEXES) await getSql().unsafe(`drop index if exists deliveries_body_trgm_idx; drop index if exists deliveries_event_type_trgm_idx`);
    console.log(`bench/deliver: ${TOTAL} stored deliveries (~1 KB), a local destination answering 200 at once, the real worker process`);
    console.log(`(WORKER_CONCURRENCY=${process.env.WORKER_CONCURRENCY ?? "100 (default)"}, WORKER_LOCAL_QUEUE_SIZE=${process.env.WORKER_LOCAL_QUEUE_SIZE ?? "200 (default)"})`);
    const results = [];
    for (const scenario of SCENARIOS) {
      if (ONLY && !scenario.name.includes(ONLY)) continue;
      results.push(await drain(databaseUrl, destination.url, destination.arrivals, scenario));
    }
    console.log("\n| scenario | deliveries/s (first → last arrival) | deliveries/s (worker start → all delivered) | CPU ms per delivery: worker + database |");
    console.log("| --- | ---: | ---: | ---: |");
    for (const r of results) {
      console.log(`| ${r.name} | ${r.perSecond.toFixed(0)} | ${r.withStartup.toFixed(0)} | ${r.workerCpuMs.toFixed(2)} + ${r.databaseCpuMs.toFixed(2)} |`);
    }
    console.log(`(load average at the end: ${loadavg().map((n) => n.toFixed(1)).join(" ")}; other work on this machine slows the figures above but not the CPU cost per delivery)`);
    if (!ONLY || ONLY === "latency") {
      const latency = await idleLatency(databaseUrl, destination);
      console.log(`\nack-to-destination latency at idle (${LATENCY_SAMPLES} deliveries, one at a time): p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ${latency.max.toFixed(1)} ms`);
    }
  } finally {
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
