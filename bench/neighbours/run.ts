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
//                                 BENCH_LOG_SLOW_MS=n: log this database's slow statements and lock waits,
//                                 BENCH_BODY=realistic|padded|entropy[:KiB]: the bodies sent (bench/support/signed-webhook.ts),
//                                 FLOOD_BODY=same syntax: org A's bodies instead, e.g. entropy:64, to see what
//                                 one tenant's big high-entropy bodies, trigram-indexed, cost the others' acks)
import { loadavg } from "node:os";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { createOrganizationFixture } from "@/test/fixtures";
import { flood, type Flood } from "../support/flood";
import { CpuMeter, type CpuUse } from "../support/cpu";
import { openLoop, type OpenLoopResult } from "../support/open-loop";
import { BENCH_BODY, benchBody } from "../support/signed-webhook";
import { untilDelivered } from "../support/product";
import { runBench } from "../support/run-bench";
import { median } from "../support/stats";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const B_RATE = Number(process.env.BENCH_B_RATE ?? 100);
const CONNECTIONS = Number(process.env.FLOOD_CONNECTIONS ?? 50);
/** Org A's bodies: FLOOD_BODY's, else BENCH_BODY's as org B's. */
const FLOOD_BODY = process.env.FLOOD_BODY ? benchBody(process.env.FLOOD_BODY, "FLOOD_BODY") : BENCH_BODY;
/** B's first requests of each phase (the flood ramping up, connections opening) are sent but not counted. */
const SETTLE_SECONDS = 2;

type Phase = OpenLoopResult & { name: string };

/** B's steady sender: B_RATE signed requests a second on a fixed schedule (open loop: a slow answer does not delay the next send). */
async function sendSteadily(url: string, secret: string, seconds: number, name: string): Promise<Phase> {
  const result = await openLoop({ targets: [{ url, secret }], rate: B_RATE, seconds, settleSeconds: SETTLE_SECONDS, tag: `b_${name.replace(/\W+/g, "_")}`, maxSockets: 64 });
  return { ...result, name };
}


const pressure = (share: number | null) => (share === null ? "unknown" : `${(share * 100).toFixed(0)} %`);
const describeFailures = (failures: Record<string, number>) => Object.entries(failures).map(([why, n]) => `${n}× ${why}`).join(", ") || "none";

runBench("inbox_bench_neighbours", async ({ database, destination, startProduct }) => {
  // BENCH_LOG_SLOW_MS=n: PostgreSQL logs this database's statements slower than n ms, and lock waits.
  if (process.env.BENCH_LOG_SLOW_MS) {
    await database.admin.unsafe(`alter database "${database.name}" set log_min_duration_statement = ${Number(process.env.BENCH_LOG_SLOW_MS)}`);
    await database.admin.unsafe(`alter database "${database.name}" set log_lock_waits = on`);
  }
  const endpointOf = async (name: string, paused = false) => {
    const org = await createOrganizationFixture(name);
    return createEndpoint({ ctx: org.ctx, input: { name, provider: "standard-webhooks", destinationUrl: destination.url, paused } });
  };
  // BENCH_A_PAUSED=1: A's deliveries are stored but not delivered (to see what ingest alone costs B, without the worker's share).
  const [a, b] = [await endpointOf("Org A (flooding)", process.env.BENCH_A_PAUSED === "1"), await endpointOf("Org B (steady)")];
  // The web server and the worker with their defaults, as `npm start` runs them.
  const product = await startProduct({ workerEnv: { DELIVERY_LOG: "problems" } });
  const [aUrl, bUrl] = [`${product.web.url}/in/${a.id}`, `${product.web.url}/in/${b.id}`];
  const wholeRun = await new CpuMeter({}).start();
  console.log(`bench/neighbours: org B sends ${B_RATE} signed req/s; org A idle, then flooding on ${CONNECTIONS} connections; ${SECONDS} s per phase, ${ROUNDS} rounds`);
  console.log(`bodies: org A (FLOOD_BODY) ${FLOOD_BODY.label}; org B (BENCH_BODY) ${BENCH_BODY.label}`);
  console.log(`(ORG_INGEST_RATE=${process.env.ORG_INGEST_RATE ?? "default"}, ORG_INGEST_BURST=${process.env.ORG_INGEST_BURST ?? "default"}; web server, worker, PostgreSQL and both senders on this machine)`);
  await sendSteadily(bUrl, b.secret!, 3, "warm-up"); // first compiles, pools fill
  await untilDelivered(getSql());

  const rows: Array<{ round: number; idle: Phase; busy: Phase; flood: Flood; cpu: { idle: CpuUse; busy: CpuUse } }> = [];
  const meter = new CpuMeter({ processes: { web: product.web.child.pid, worker: product.worker.pid }, database });
  for (let round = 1; round <= ROUNDS; round++) {
    await meter.start();
    const idle = await sendSteadily(bUrl, b.secret!, SECONDS, "A idle");
    const idleCpu = await meter.stop();
    await untilDelivered(getSql());
    const flooding = flood(aUrl, a.secret!, SECONDS + SETTLE_SECONDS + 1, CONNECTIONS, FLOOD_BODY);
    await new Promise((resolve) => setTimeout(resolve, 500)); // the flood's process starts and connects
    await meter.start();
    const busy = await sendSteadily(bUrl, b.secret!, SECONDS, "A flooding");
    const busyCpu = await meter.stop();
    const floodResult = await flooding;
    await untilDelivered(getSql());
    rows.push({ round, idle, busy, flood: floodResult, cpu: { idle: idleCpu, busy: busyCpu } });
  }

  console.log("\n| round | phase | B sent | B 200 | B failures | B p50 ms | B p99 ms | B max ms |");
  console.log("| ---: | --- | ---: | ---: | --- | ---: | ---: | ---: |");
  for (const { round, idle, busy } of rows) {
    for (const p of [idle, busy]) console.log(`| ${round} | ${p.name} | ${p.sent} | ${p.ok} | ${describeFailures(p.failures)} | ${p.latency.p50.toFixed(1)} | ${p.latency.p99.toFixed(1)} | ${p.latency.max.toFixed(1)} |`);
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
      const [web, worker] = [c.processes.web!, c.processes.worker!];
      const ours = web + worker + c.database + c.bench;
      const cores = (x: number) => (x / c.seconds).toFixed(2);
      console.log(`| ${round} | ${p.name} | ${c.seconds.toFixed(1)} | ${cores(web)} | ${cores(worker)} | ${cores(c.database)} | ${cores(c.bench)} | ${cores(c.machine - ours)} (flood process included) | ${cores(c.machine)} |`);
    }
  }
  console.log(`(the flood process itself used ${rows.map((r) => r.flood.cpuSeconds.toFixed(1)).join(", ")} CPU s per round)`);
  const [{ a_rows, b_rows }] = await getSql()`
    select count(*) filter (where endpoint_id = ${a.id})::int as a_rows, count(*) filter (where endpoint_id = ${b.id})::int as b_rows from deliveries`;
  const bFailures = rows.reduce((sum, r) => sum + r.busy.sent - r.busy.ok + r.idle.sent - r.idle.ok, 0);
  const [idleP99, busyP99] = [median(rows.map((r) => r.idle.latency.p99)), median(rows.map((r) => r.busy.latency.p99))];
  const [idleP50, busyP50] = [median(rows.map((r) => r.idle.latency.p50)), median(rows.map((r) => r.busy.latency.p50))];
  console.log(`\nB failures in all phases: ${bFailures} (target 0)`);
  console.log(`B medians over rounds: A idle p50 ${idleP50.toFixed(1)} ms, p99 ${idleP99.toFixed(1)} ms; A flooding p50 ${busyP50.toFixed(1)} ms, p99 ${busyP99.toFixed(1)} ms`);
  console.log(`B p99 flooding / idle: ${(busyP99 / idleP99).toFixed(2)}× (target ≤ 2×; per round ${rows.map((r) => `${(r.busy.latency.p99 / r.idle.latency.p99).toFixed(2)}×`).join(", ")})`);
  console.log(`stored: A ${a_rows} deliveries, B ${b_rows} (warm-up and uncounted first seconds included)`);
  console.log(`machine: load average ${loadavg().map((n) => n.toFixed(1)).join(" ")}; CPU pressure over the run ${pressure((await wholeRun.stop()).pressure)} (the share of time some task waited for a core)`);
});
