// bench/deliver: how fast the real worker process (jobs/worker.ts, with graphile-worker's batching:
// localQueue + completeJobBatchDelay) drains stored deliveries to a local destination that answers
// 200 at once, and the ack-to-destination latency at idle. Prints its figures; asserts nothing.
//   npx tsx bench/deliver/run.ts     (BENCH_DELIVERIES=20000, BENCH_LATENCY_SAMPLES=300, BENCH_ONLY=<scenario name part>)
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { loadavg } from "node:os";
import { getSql } from "@/db";
import { deliverJobSpec, enqueueRaw } from "@/lib/queue/enqueue";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { newId } from "@/lib/ids";
import { createOrganizationFixture } from "@/test/fixtures";
import { CpuMeter } from "../support/cpu";
import type { BenchDatabase } from "../support/database";
import type { BenchDestination } from "../support/destination";
import { startWorker, stopWorker } from "../support/product";
import { runBench } from "../support/run-bench";
import { epochNow, percentile } from "../support/stats";

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

function worker(databaseUrl: string, cap: number) {
  const nodeArgs = process.env.BENCH_CPU_PROF ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  return startWorker(databaseUrl, { nodeArgs, env: { DELIVERY_LOG: "problems", DELIVERY_ENDPOINT_CONCURRENCY: String(cap) } });
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
        `with d as (
           insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, size_bytes)
           select r.id, $2, r.endpoint_id, 'dst_' || substr(r.endpoint_id, 4), r.id, 'bench.event', octet_length($3)
           from json_to_recordset($1::text::json) as r(id text, endpoint_id text)
           returning id, organization_id)
         insert into delivery_payloads (delivery_id, organization_id, headers, body)
         select id, organization_id, '{"content-type":"application/json"}'::jsonb, convert_to($3, 'UTF8') from d`,
        [JSON.stringify(rows), organizationId, BODY],
      );
      await enqueueRaw(tx, rows.map((r) => deliverJobSpec({ deliveryId: r.id, destinationId: defaultDestinationId(r.endpoint_id), trigger: "auto" })));
    });
  }
  return ids;
}

async function deliveredCount(organizationId: string): Promise<number> {
  const [row] = await getSql()`select count(*)::int as n from deliveries where organization_id = ${organizationId} and status = 'delivered'`;
  return row!.n;
}

async function drain(database: BenchDatabase, destination: BenchDestination, scenario: Scenario) {
  const org = await createOrganizationFixture(`Bench ${scenario.name}`);
  const endpointIds: string[] = [];
  for (let i = 0; i < scenario.endpoints; i++) {
    endpointIds.push((await createEndpoint({ ctx: org.ctx, input: { name: `bench-${i}`, provider: "none", destinationUrl: destination.url } })).id);
  }
  const ids = await storeDeliveries(org.organizationId, endpointIds, TOTAL);
  const { arrivals } = destination;
  const before = arrivals.size;
  const started = epochNow();
  const running = worker(database.url, scenario.cap);
  // The worker's server processes live as long as the worker; the meter samples them as they appear.
  const meter = await new CpuMeter({ processes: { worker: running.pid }, database }).start();
  try {
    // Watch the destination (in memory) rather than the database, so the bench adds no load.
    while (arrivals.size - before < TOTAL) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (running.exitCode !== null || running.signalCode !== null) throw new Error(`the worker exited (${running.exitCode ?? running.signalCode}) before delivering everything`);
      if (Math.random() < 0.1) await meter.sample();
    }
    const cpu = await meter.stop();
    for (;;) {
      const done = await deliveredCount(org.organizationId);
      if (done >= TOTAL) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const finished = epochNow();
    const times = ids.map((id) => arrivals.get(id)!.at).sort((a, b) => a - b);
    const first = times[0]!;
    const last = times.at(-1)!;
    return {
      name: scenario.name,
      perSecond: TOTAL / ((last - first) / 1000),
      withStartup: TOTAL / ((finished - started) / 1000),
      seconds: (last - first) / 1000,
      workerCpuMs: (cpu.processes.worker! * 1000) / TOTAL,
      databaseCpuMs: (cpu.database * 1000) / TOTAL,
    };
  } finally {
    await stopWorker(running);
  }
}

async function idleLatency(databaseUrl: string, destination: BenchDestination) {
  const org = await createOrganizationFixture("Bench latency");
  const endpoint = await createEndpoint({ ctx: org.ctx, input: { name: "latency", provider: "none", destinationUrl: destination.url } });
  const running = worker(databaseUrl, 10);
  try {
    // Warm up: the worker's first job (connections, keep-alive sockets) is not counted.
    const latencies: number[] = [];
    for (let i = 0; i < LATENCY_SAMPLES + 10; i++) {
      const id = newId("dlv");
      const arrived = destination.arrivalOf(id);
      await getSql().begin(async (tx) => {
        await tx`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, size_bytes)
          values (${id}, ${org.organizationId}, ${endpoint.id}, ${defaultDestinationId(endpoint.id)}, ${id}, ${BODY.length})`;
        await tx`insert into delivery_payloads (delivery_id, organization_id, headers, body)
          values (${id}, ${org.organizationId}, ${tx.json({ "content-type": "application/json" })}, ${Buffer.from(BODY)})`;
        await enqueueRaw(tx, [deliverJobSpec({ deliveryId: id, destinationId: defaultDestinationId(endpoint.id), trigger: "auto" })]);
      });
      const acked = epochNow(); // ingest answers 200 right after this commit
      const { at } = await arrived;
      if (i >= 10) latencies.push(at - acked);
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30)); // idle between deliveries
    }
    latencies.sort((a, b) => a - b);
    return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1)! };
  } finally {
    await stopWorker(running);
  }
}

runBench("inbox_bench_deliver", async ({ database, destination }) => {
  const { admin, name: databaseName } = database;
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
    results.push(await drain(database, destination, scenario));
  }
  console.log("\n| scenario | deliveries/s (first → last arrival) | deliveries/s (worker start → all delivered) | CPU ms per delivery: worker + database |");
  console.log("| --- | ---: | ---: | ---: |");
  for (const r of results) {
    console.log(`| ${r.name} | ${r.perSecond.toFixed(0)} | ${r.withStartup.toFixed(0)} | ${r.workerCpuMs.toFixed(2)} + ${r.databaseCpuMs.toFixed(2)} |`);
  }
  console.log(`(load average at the end: ${loadavg().map((n) => n.toFixed(1)).join(" ")}; other work on this machine slows the figures above but not the CPU cost per delivery)`);
  if (!ONLY || ONLY === "latency") {
    const latency = await idleLatency(database.url, destination);
    console.log(`\nack-to-destination latency at idle (${LATENCY_SAMPLES} deliveries, one at a time): p50 ${latency.p50.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms, max ${latency.max.toFixed(1)} ms`);
  }
});
