// bench/e2e: the product end to end, as deployed — a fresh database, the web server and the worker as
// `npm start` runs them, 10 endpoints relaying to a local destination that answers 200 — under signed
// webhooks (~1.2 KB Stripe-like events by default: BENCH_BODY) offered at fixed rates (open loop, from a load generator process of its own:
// bench/e2e/load.ts). Per rate: achieved ingest rate and latency, deliveries that arrived against
// webhooks acknowledged, how long after the last send was due the last delivery arrived,
// send→destination latency (from when the generator sent it, after any wait for one of its 256
// sockets; the send time travels in a header the relay passes on), and CPU per webhook
// of PostgreSQL (this database's server processes, from /proc), the web server and the worker. Then
// the same for paused endpoints, with the worker running and stopped (ingest gives a paused
// endpoint's deliveries no job; one queued before the pause is parked by its claim). With the worker stopped
// nobody makes those bodies searchable (lib/search/index-bodies.ts); that work is owed, not saved, so the bench
// then does it itself, measured apart, for a like-for-like figure. Each phase also prints the WAL it wrote per
// webhook and the checkpoints it saw (server-wide: other databases' writes count there too).
// Prints its figures; asserts nothing.
//   npm run bench:e2e [-- --rates 500,1000 --seconds 10]
//   options (or env): --rates (BENCH_RATES, default 500,1000,1500,2000 webhooks/s), --seconds (BENCH_SECONDS, 20 per rate),
//   --paused-rate (BENCH_PAUSED_RATE, 500; 0 skips the paused phases), --endpoints (BENCH_ENDPOINTS, 10),
//   --organizations (BENCH_ORGANIZATIONS, as many as endpoints: one endpoint each), --drain-seconds (BENCH_DRAIN_SECONDS, 120:
//   longest wait for deliveries), --port (BENCH_PORT: the web server's, the destination on the next; default free ports),
//   --kept-weeks (BENCH_KEPT_WEEKS, 0: another organization keeps that many past weeks, 100 deliveries each, as a
//   year's retention leaves them: bench/support/kept-weeks.ts; BENCH_FLOORS=unset leaves the floors '', as before them);
//   --fanout-rate (BENCH_FANOUT_RATE, the first rate; 0 skips: each endpoint then gets two more destinations, one
//   taking every request and one whose filter takes half, and that rate is offered again: PostgreSQL CPU per
//   request against the one-destination phase of the same rate, issue #43's target ≤ 2×),
//   --naive (BENCH_NAIVE, 1; 0 skips): after each rate, the same rate and bodies against the naive floor (bench/naive: bare
//   node:http, verify, one transaction with INSERT … ON CONFLICT DO NOTHING and add_job, a plain graphile-worker task
//   delivering, in a database of its own), then the product's figures as ratios of the naive's (bench/e2e/naive-ratios.ts);
//   --naive-concurrency (BENCH_NAIVE_CONCURRENCY, 10: the naive worker's jobs at once), --current-seconds
//   (BENCH_CURRENT_SECONDS, 5: deliveries are current when the last arrived within that many seconds of the end),
//   env BENCH_BODY (realistic, padded or entropy[:KiB]: the bodies sent, bench/support/signed-webhook.ts)
import { cpus } from "node:os";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { createDestination } from "@/lib/destinations/create-destination";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { indexBodies, indexBodiesSettings } from "@/lib/search/index-bodies";
import { updateEndpoint } from "@/lib/endpoints/update-endpoint";
import { createOrganizationFixture } from "@/test/fixtures";
import { BENCH_APPLICATION_NAME, CpuMeter } from "../support/cpu";
import type { BenchDestination } from "../support/destination";
import { stopWorker, untilDelivered } from "../support/product";
import { ActiveQuerySampler, type ActiveQueryShare } from "../support/active-queries";
import { benchPort, runBench } from "../support/run-bench";
import { startNaive, type Naive } from "../naive/start";
import { achieved, micros, type Loaded, type Phase, type WalUse } from "./figures";
import { reportNaiveRatios } from "./naive-ratios";
import { report, reportFanOut, type Owed } from "./report";
import { startLoad } from "./start-load";
import { benchBodyLabel } from "../support/signed-webhook";
import { keepPastWeeks } from "../support/kept-weeks";
import { summarize } from "../support/stats";

const OPTIONS = ["rates", "seconds", "paused-rate", "endpoints", "organizations", "drain-seconds", "port", "kept-weeks", "fanout-rate", "naive", "naive-concurrency", "current-seconds"] as const;
const { values: args } = parseArgs({ options: Object.fromEntries(OPTIONS.map((name) => [name, { type: "string" }])) });
const option = (name: (typeof OPTIONS)[number], fallback: string) =>
  (args[name] as string | undefined) ?? process.env[`BENCH_${name.toUpperCase().replaceAll("-", "_")}`] ?? fallback;

const RATES = option("rates", "500,1000,1500,2000").split(",").map(Number);
const SECONDS = Number(option("seconds", "20"));
const PAUSED_RATE = Number(option("paused-rate", "500"));
const ENDPOINTS = Number(option("endpoints", "10"));
const ORGANIZATIONS = Math.min(ENDPOINTS, Number(option("organizations", String(ENDPOINTS))));
const DRAIN_SECONDS = Number(option("drain-seconds", "120"));
const KEPT_WEEKS = Number(option("kept-weeks", "0"));
const FANOUT_RATE = Number(option("fanout-rate", String(RATES[0])));
const NAIVE = option("naive", "1") !== "0";
const NAIVE_CONCURRENCY = Number(option("naive-concurrency", "10"));
const CURRENT_SECONDS = Number(option("current-seconds", "5"));
/** The fan-out phase's half: the webhook ids end in a random hex digit (bench/support/open-loop.ts); 8 of 16 match. */
const HALF_FILTER = { $or: "01234567".split("").map((digit) => ({ body: { id: { $endsWith: digit } } })) };
const FLOORS = process.env.BENCH_FLOORS === "unset" ? "unset" : "set";
const IDLE_SECONDS = 10;
if (option("port", "")) process.env.BENCH_PORT = option("port", "");

interface Target { url: string; secret: string }
type WaitFor = "delivered" | "parked" | "answered";

/** What takes a phase's load, the product or the naive floor, and how the bench measures it. */
interface System {
  of: Phase["of"];
  targets: Target[];
  processes: Record<string, number | undefined>;
  /** Its database: its backends' CPU is the phase's PostgreSQL CPU. */
  database: { admin: postgres.Sql; name: string };
  /** Waits, once every acknowledged webhook has arrived (when it was to), for the rest of the phase's work. */
  settle(waitFor: WaitFor, drainMs: number): Promise<void>;
}

async function until(what: string, probe: () => boolean | Promise<boolean>, timeoutMs: number, everyMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe()) return true;
    if (Date.now() > deadline) {
      console.log(`(gave up waiting for ${what} after ${timeoutMs / 1000} s)`);
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

runBench("inbox_bench_e2e", async ({ database, destination, startProduct }) => {
  // The bench's own queries while measuring, named so that their backend is not counted as the product's.
  const watch = postgres(database.url, { max: 1, onnotice: () => {}, connection: { application_name: BENCH_APPLICATION_NAME } });
  let naive: Naive | undefined;
  try {
    const organizations = [];
    for (let i = 0; i < ORGANIZATIONS; i++) organizations.push(await createOrganizationFixture(`Bench e2e ${i}`)); // hashing is bounded
    const endpoints = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const { ctx } = organizations[i % ORGANIZATIONS]!;
      endpoints.push({ ctx, ...(await createEndpoint({ ctx, input: { name: `e2e-${i}`, provider: "standard-webhooks", destinationUrl: destination.url } })) });
    }
    await keepPastWeeks(watch, { weeks: KEPT_WEEKS, perWeek: 100, floors: FLOORS });
    // Each organization's ingest rate limit (default 120/s per web process) would be the figure measured, not the product's capacity.
    const orgRate = process.env.ORG_INGEST_RATE ?? "1000000";
    const product = await startProduct({ webEnv: { ORG_INGEST_RATE: orgRate } });
    const targets: Target[] = endpoints.map((endpoint) => ({ url: `${product.web.url}/in/${endpoint.id}`, secret: endpoint.secret! }));
    const jobsLeft = async () => (await watch`select exists (select 1 from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id where t.identifier = 'deliver') as left`)[0]!.left as boolean;

    const bodiesWaiting = async () => (await watch`select exists (select 1 from delivery_payloads where not searchable) as left`)[0]!.left as boolean;

    const walMark = async () => (await watch`
      select pg_current_wal_lsn()::text as lsn, (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter)::int as checkpoints`)[0]! as { lsn: string; checkpoints: number };
    const walSince = async (mark: { lsn: string; checkpoints: number }): Promise<WalUse> => {
      const [now] = await watch`
        select pg_wal_lsn_diff(pg_current_wal_lsn(), ${mark.lsn}::pg_lsn)::float8 as bytes,
               (select checkpoints_timed + checkpoints_req from pg_stat_bgwriter)::int - ${mark.checkpoints}::int as checkpoints`;
      return { bytes: now!.bytes as number, checkpoints: now!.checkpoints as number };
    };

    const productSystem: System = {
      of: "product", targets, processes: { web: product.web.child.pid, worker: product.worker.pid }, database,
      settle: async (waitFor, drainMs) => {
        if (waitFor === "delivered" && !(await untilDelivered(watch, drainMs))) console.log("(gave up waiting for the deliveries' states to settle)");
        if (waitFor === "parked") await until("the worker to park every job", async () => !(await jobsLeft()), drainMs, 100);
        // The worker's body indexer (lib/search/index-bodies.ts) is part of what a webhook costs: its share is in the phase.
        if (waitFor !== "answered") await until("every body searchable", async () => !(await bodiesWaiting()), drainMs, 100);
      },
    };
    let naiveSystem: System | undefined;
    if (NAIVE) {
      naive = await startNaive({
        admin: database.admin, serverUrl: database.url, name: `${database.name}_naive`, port: benchPort(2), concurrency: NAIVE_CONCURRENCY,
        secrets: Object.fromEntries(endpoints.map((endpoint) => [endpoint.id, endpoint.secret!])), destinationUrl: destination.url,
      });
      const naiveUrl = naive.url;
      const { allDelivered } = naive;
      naiveSystem = {
        of: "naive", targets: endpoints.map((endpoint) => ({ url: `${naiveUrl}/in/${endpoint.id}`, secret: endpoint.secret! })),
        processes: { web: naive.server.pid, worker: naive.worker.pid }, database: { admin: database.admin, name: naive.database.name },
        settle: async (waitFor, drainMs) => void (waitFor === "delivered" && (await until("the naive marking every webhook delivered", allDelivered, drainMs, 100))),
      };
    }

    const measure = async (label: string, rate: number, seconds: number, waitFor: WaitFor, system: System = productSystem): Promise<Phase> => {
      const load = await startLoad({ targets: system.targets, rate, seconds, tag: `e2e_${label.replace(/\W+/g, "_")}` });
      const walAtStart = await walMark();
      const meter = await new CpuMeter({ processes: system.processes, database: system.database }).start();
      const statements = new ActiveQuerySampler(system.database).start();
      const sampling = setInterval(() => void meter.sample().catch(() => {}), 500);
      try {
        const loaded = await load.go();
        const drainMs = DRAIN_SECONDS * 1000;
        if (waitFor === "delivered") {
          let missingFrom = 0; // acknowledged ids before it have arrived
          const allArrived = () => {
            while (missingFrom < loaded.acknowledged.length && destination.arrivals.has(loaded.acknowledged[missingFrom]!)) missingFrom++;
            return missingFrom === loaded.acknowledged.length;
          };
          await until("every acknowledged webhook at the destination", allArrived, drainMs, 20);
        }
        await system.settle(waitFor, drainMs);
        const cpu = await meter.stop();
        const wal = await walSince(walAtStart);
        printBusiestStatements(label, statements.stop());
        return { label, of: system.of, rate, load: loaded, cpu, wal, ...arrivalsOf(loaded, destination) };
      } finally {
        clearInterval(sampling);
      }
    };

    console.log(`bench/e2e: ${ENDPOINTS} endpoints in ${ORGANIZATIONS} organization(s), signed Standard Webhooks requests (body ${benchBodyLabel()}, BENCH_BODY), open loop from a process of its own;`);
    console.log(`web server + worker as npm start runs them (ORG_INGEST_RATE=${orgRate}; every other setting ${settingsNote()}), PostgreSQL at ${new URL(database.url).host}, all on this ${cpus().length}-core machine`);
    if (KEPT_WEEKS > 0) console.log(`another organization keeps ${KEPT_WEEKS} past weeks (delivery id floors ${FLOORS})`);
    if (naive) console.log(`the naive floor beside it after each rate (bench/naive, its own database ${naive.database.name}, worker concurrency ${NAIVE_CONCURRENCY})`);
    const warmUpRate = Math.min(200, ...RATES); // never more than the run offers (a smoke run at a few a second)
    await measure("warm-up", warmUpRate, 3, "delivered"); // compiles, pools, connections
    if (naiveSystem) await measure("naive warm-up", warmUpRate, 3, "delivered", naiveSystem);
    // What the product costs with nothing to do (polling, heartbeats, sweeps): it is in every phase's
    // CPU per webhook, the more so the fewer webhooks a phase gets through.
    const idleMeter = await new CpuMeter({ processes: productSystem.processes, database }).start();
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const idle = await idleMeter.stop();

    const phases: Phase[] = [];
    const naivePhases: Phase[] = [];
    for (const rate of RATES) {
      console.log(`${rate}/s for ${SECONDS} s…`);
      const phase = await measure(`${rate}/s`, rate, SECONDS, "delivered");
      phases.push(phase);
      console.log(`${rate}/s done: achieved ${achieved(phase).toFixed(0)}/s, ingest p99 ${phase.load.latency.p99.toFixed(0)} ms, PostgreSQL ${micros(phase.cpu.database, phase).toFixed(0)} µs/webhook`);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      if (!naiveSystem) continue;
      const floor = await measure(`naive ${rate}/s`, rate, SECONDS, "delivered", naiveSystem);
      naivePhases.push(floor);
      console.log(`naive ${rate}/s done: achieved ${achieved(floor).toFixed(0)}/s, ingest p99 ${floor.load.latency.p99.toFixed(0)} ms, PostgreSQL ${micros(floor.cpu.database, floor).toFixed(0)} µs/webhook`);
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    // The naive is done: its processes idle no longer beside the product's phases that follow.
    await naive?.stop();
    naive = undefined;

    let fanOut: { one: Phase; three: Phase; rows: number } | null = null;
    if (FANOUT_RATE > 0) {
      const one = phases.find((p) => p.rate === FANOUT_RATE);
      for (const endpoint of endpoints) {
        await createDestination({ ctx: endpoint.ctx, input: { endpointId: endpoint.id, body: { name: "every request", url: `${destination.url}/all` } } });
        await createDestination({ ctx: endpoint.ctx, input: { endpointId: endpoint.id, body: { name: "half", url: `${destination.url}/half`, filter: HALF_FILTER } } });
      }
      // The web server's endpoint cache keeps an endpoint's routing 5 s (lib/endpoints/endpoint-cache.ts).
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      const rowsBefore = (await watch`select count(*)::int as n from deliveries`)[0]!.n as number;
      console.log(`fan-out: ${FANOUT_RATE}/s for ${SECONDS} s into three destinations an endpoint (one filter taking half)…`);
      const three = await measure(`fan-out ${FANOUT_RATE}/s`, FANOUT_RATE, SECONDS, "delivered");
      const rows = (await watch`select count(*)::int as n from deliveries`)[0]!.n - rowsBefore;
      if (one) fanOut = { one, three, rows };
      else console.log(`(no one-destination phase at ${FANOUT_RATE}/s in --rates to compare with)`);
    }

    const paused: Phase[] = [];
    let owed: Owed | null = null;
    if (PAUSED_RATE > 0) {
      for (const endpoint of endpoints) await updateEndpoint({ ctx: endpoint.ctx, input: { id: endpoint.id, changes: { paused: true } } });
      paused.push(await measure("paused, worker running", PAUSED_RATE, SECONDS, "parked"));
      await stopWorker(product.worker);
      const stopped = await measure("paused, worker stopped", PAUSED_RATE, SECONDS, "answered");
      paused.push(stopped);
      // What the stopped worker left owed: the same bodies made searchable, by the product's own code, here.
      const walAtStart = await walMark();
      const meter = await new CpuMeter({ database }).start();
      const settings = { ...indexBodiesSettings(), busyShare: 1 };
      for (let after = ""; await bodiesWaiting(); ) after = (await indexBodies({ after, settings })).after;
      owed = { cpu: await meter.stop(), wal: await walSince(walAtStart), webhooks: stopped.load.ok };
    }
    report([...phases, ...naivePhases], paused, owed, idle, destination);
    if (naivePhases.length) reportNaiveRatios(phases, naivePhases, CURRENT_SECONDS);
    if (fanOut) reportFanOut(fanOut);
  } finally {
    await naive?.stop();
    await watch.end();
  }
});

function arrivalsOf(load: Loaded, destination: BenchDestination) {
  const latencies: number[] = [];
  let delivered = 0;
  let last = 0;
  for (const id of load.acknowledged) {
    const arrival = destination.arrivals.get(id);
    if (!arrival) continue;
    delivered++;
    last = Math.max(last, arrival.at);
    if (arrival.sentAt !== null) latencies.push(arrival.at - arrival.sentAt);
  }
  return { delivered, lastDeliveryAfterEnd: last ? (last - load.lastDueAt) / 1000 : null, sendToDestination: summarize(latencies) };
}

const settingsNote = () => {
  const set = ["WORKER_CONCURRENCY", "DELIVERY_ENDPOINT_CONCURRENCY", "ORG_DELIVERY_CONCURRENCY", "DELIVERY_LOG", "DATABASE_POOL_SIZE"].filter((name) => process.env[name]);
  return set.length ? `at its default except ${set.map((name) => `${name}=${process.env[name]}`).join(", ")}` : "at its default";
};

/** What the system's backends were running, most seen first: where PostgreSQL's time went in the phase. */
function printBusiestStatements(label: string, shares: ActiveQueryShare[]) {
  console.log(`  ${label}: statements seen running (average backends at once, wait event)`);
  for (const share of shares) console.log(`    ${share.backends.toFixed(2)}  ${share.wait}  ${share.statement}`);
}

