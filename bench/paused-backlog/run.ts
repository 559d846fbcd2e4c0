// bench/paused-backlog: does a paused endpoint cost nothing until it resumes (API.md; issue #13 point 3)?
// The product as deployed (bench/support: a fresh database, the web server and the worker as `npm
// start` runs them, every delivery setting at its default), a local destination answering 200. Three parts:
//   (a) org A floods its paused endpoint (bench/neighbours/flood.ts): PostgreSQL CPU per stored request
//       with the worker running and with it stopped, in turns (target: running ≤ 1.5× stopped); and
//       what the idle worker alone costs the database a second (polling, heartbeats, cron);
//   (b) org O sends steadily to 4 active endpoints, without and then with BACKLOG deliveries parked on
//       org B's paused endpoint (seeded with SQL, as ingest stores them: parked, no job): O's delivered
//       rate, send → destination p50/p99, how long after the sending the last one arrived, and
//       PostgreSQL CPU per O webhook (target: < 10 % change). With BENCH_ALIGN (default on) each phase
//       spans a minute boundary, so each includes one run of the every-minute sweeps;
//   (c) B's endpoint is resumed through the REST API while O keeps sending: the backlog's drain rate
//       and order (seeded in order; with its cap in flight at once a later one may overtake an earlier
//       one) and O's figures meanwhile.
// Prints its figures; asserts nothing.
//   npm run bench:paused-backlog   env: BENCH_FLOOD_ROUNDS (2), BENCH_FLOOD_SECONDS (10), FLOOD_CONNECTIONS (50),
//     BENCH_ROUNDS (1) rounds of (b), BENCH_SECONDS (30) per phase of (b), BENCH_OTHER_RATE (100 req/s),
//     BENCH_BACKLOG (100000), BENCH_DRAIN_SECONDS (30), BENCH_ALIGN (1; 0: no wait for a minute boundary),
//     BENCH_SKIP_FLOOD (0; 1 leaves out (a)), BENCH_PORT (free ports),
//     BENCH_BODY (realistic; padded, entropy[:KiB]: the bodies sent, bench/support/signed-webhook.ts)
import { cpus, loadavg } from "node:os";
import postgres from "postgres";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { createOrganizationFixture } from "@/test/fixtures";
import { flood } from "../support/flood";
import { BENCH_APPLICATION_NAME, CpuMeter } from "../support/cpu";
import type { BenchDestination } from "../support/destination";
import { openLoop } from "../support/open-loop";
import { startWorker, stopWorker, type BenchWorker } from "../support/product";
import { runBench } from "../support/run-bench";
import { benchBodyLabel } from "../support/signed-webhook";
import { median, summarize } from "../support/stats";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const FLOOD_ROUNDS = env("BENCH_FLOOD_ROUNDS", 2);
const FLOOD_SECONDS = env("BENCH_FLOOD_SECONDS", 10);
const CONNECTIONS = env("FLOOD_CONNECTIONS", 50);
const ROUNDS = env("BENCH_ROUNDS", 1);
const SECONDS = env("BENCH_SECONDS", 30);
const OTHER_RATE = env("BENCH_OTHER_RATE", 100);
const BACKLOG = env("BENCH_BACKLOG", 100_000);
const DRAIN_SECONDS = env("BENCH_DRAIN_SECONDS", 30);
const ALIGN = process.env.BENCH_ALIGN !== "0";
const OTHER_ENDPOINTS = 4;
const BACKLOG_ID_PREFIX = "dlv_backlog";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const load = () => loadavg().map((n) => n.toFixed(1)).join(" ");


interface Phase { name: string; webhooks: number; failed: number; deliveredPerSecond: number; p50: number; p99: number; lagSeconds: number; databaseMicros: number }

runBench("inbox_bench_paused", async ({ database, destination, startProduct }) => {
  // The bench's own queries (seeding, removing, watching), not counted as the product's.
  const bench = postgres(database.url, { max: 1, onnotice: () => {}, connection: { application_name: BENCH_APPLICATION_NAME } });
  /** O's endpoints' ingest URLs and secrets. */
  let targets: { url: string; secret: string }[] = [];
  /** A worker (a) started again: not the product's, so stopped here at the end. */
  let restarted: BenchWorker | undefined;
  try {
    const [orgA, orgB, orgO] = [await createOrganizationFixture("A (floods its paused endpoint)"), await createOrganizationFixture("B (paused backlog)"), await createOrganizationFixture("O (others)")];
    const endpointOf = (org: typeof orgA, name: string, paused: boolean) =>
      createEndpoint({ ctx: org.ctx, input: { name, provider: "standard-webhooks", destinationUrl: destination.url, paused } });
    const flooded = await endpointOf(orgA, "flooded", true);
    const backlog = await endpointOf(orgB, "backlog", true);
    const others = [];
    for (let i = 0; i < OTHER_ENDPOINTS; i++) others.push(await endpointOf(orgO, `other-${i}`, false));
    // Every organization's ingest rate lifted: the bench measures costs, not the admission limit.
    const product = await startProduct({ webEnv: { ORG_INGEST_RATE: "1000000", ORG_INGEST_BURST: "1000000" }, workerEnv: { DELIVERY_LOG: "problems" } });
    let worker: BenchWorker | undefined = product.worker;
    const meter = () => new CpuMeter({ database }).start();
    targets = others.map((e) => ({ url: `${product.web.url}/in/${e.id}`, secret: e.secret! }));
    console.log(`bench/paused-backlog: web server and worker as npm start runs them, PostgreSQL and this bench on this ${cpus().length}-core machine; load average ${load()}; bodies ${benchBodyLabel()} (BENCH_BODY)`);
    await measureOthers("warm-up", 3, false); // compiles, pools fill

    // (a) A floods its paused endpoint: the worker running, then stopped, in turns.
    if (process.env.BENCH_SKIP_FLOOD !== "1") {
      const rows: Array<{ round: number; running: boolean; stored: number; perSecond: number; micros: number }> = [];
      for (let round = 1; round <= FLOOD_ROUNDS; round++) {
        for (const running of [true, false]) {
          if (running && !worker) worker = restarted = startWorker(database.url, { env: { DELIVERY_LOG: "problems" } });
          if (!running) {
            await stopWorker(worker);
            worker = undefined;
          }
          await sleep(2_000); // the worker's start-up (or shutdown) is not counted
          const cpu = await meter();
          const result = await flood(`${product.web.url}/in/${flooded.id}`, flooded.secret!, FLOOD_SECONDS, CONNECTIONS);
          const used = await cpu.stop();
          const stored = result.statusCodes["200"]?.count ?? 0;
          rows.push({ round, running, stored, perSecond: stored / FLOOD_SECONDS, micros: (used.database * 1e6) / Math.max(1, stored) });
        }
      }
      worker ??= restarted = startWorker(database.url, { env: { DELIVERY_LOG: "problems" } });
      // What the idle worker alone costs the database: a cost per second, which weighs per request only at a given rate.
      await sleep(2_000);
      const idle = await meter();
      await sleep(FLOOD_SECONDS * 1000);
      const idleMsPerSecond = ((await idle.stop()).database * 1000) / FLOOD_SECONDS;
      const [{ jobs }] = await bench<{ jobs: number }[]>`select count(*)::int as jobs from graphile_worker._private_jobs where payload->>'endpointId' = ${flooded.id}`;
      console.log(`\n(a) ingest to a paused endpoint (A floods on ${CONNECTIONS} connections, ${FLOOD_SECONDS} s a phase)\n`);
      console.log("| round | worker | stored | req/s | PostgreSQL CPU µs per request |\n| ---: | --- | ---: | ---: | ---: |");
      for (const r of rows) console.log(`| ${r.round} | ${r.running ? "running" : "stopped"} | ${r.stored} | ${r.perSecond.toFixed(0)} | ${r.micros.toFixed(0)} |`);
      const [running, stopped] = [true, false].map((w) => median(rows.filter((r) => r.running === w).map((r) => r.micros)));
      const ratios = Array.from({ length: FLOOD_ROUNDS }, (_, i) => rows[2 * i]!.micros / rows[2 * i + 1]!.micros);
      console.log(`running ÷ stopped by round: ${ratios.map((r) => `${r.toFixed(2)}×`).join(", ")}`);
      console.log(`medians: worker running ${running!.toFixed(0)} µs, stopped ${stopped!.toFixed(0)} µs per request: ${(running! / stopped!).toFixed(2)}× (target ≤ 1.5×); jobs for the paused endpoint: ${jobs}`);
      const lessIdle = median(rows.filter((r) => r.running).map((r) => r.micros - (idleMsPerSecond * 1000) / r.perSecond));
      console.log(`the idle worker alone: ${idleMsPerSecond.toFixed(1)} ms of PostgreSQL CPU per s; worker running less that: ${lessIdle.toFixed(0)} µs per request, ${(lessIdle / stopped!).toFixed(2)}× stopped`);
      await bench`delete from deliveries where endpoint_id = ${flooded.id}`;
      await bench.unsafe("vacuum analyze deliveries");
    }

    // (b) O's steady traffic without, then with, B's parked backlog.
    const rounds: Array<{ round: number; without: Phase; with: Phase }> = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const without = await measureOthers("no paused backlog", SECONDS, ALIGN);
      await seedBacklog(orgB.organizationId, backlog.id);
      const withBacklog = await measureOthers(`${BACKLOG.toLocaleString("en")} parked on B`, SECONDS, ALIGN);
      rounds.push({ round, without, with: withBacklog });
      if (round < ROUNDS) {
        await bench`delete from deliveries where endpoint_id = ${backlog.id}`;
        await bench.unsafe("vacuum analyze deliveries");
      }
    }
    console.log(`\n(b) O sends ${OTHER_RATE} signed req/s over ${OTHER_ENDPOINTS} endpoints, ${SECONDS} s a phase${ALIGN ? " (each spans a minute boundary: one run of the sweeps)" : ""}\n`);
    console.log(HEADER.replace("| phase |", "| round | phase |").replace("| --- |", "| ---: | --- |"));
    for (const { round, without, with: w } of rounds) for (const p of [without, w]) console.log(`| ${round} ${row(p)}`);
    const change = (pick: (p: Phase) => number) => {
      const [a, b] = [median(rounds.map((r) => pick(r.without))), median(rounds.map((r) => pick(r.with)))];
      return `${a.toFixed(1)} → ${b.toFixed(1)} (${b >= a ? "+" : ""}${(((b - a) / a) * 100).toFixed(0)} %)`;
    };
    console.log(`without → with the backlog: delivered/s ${change((p) => p.deliveredPerSecond)}; p99 ms ${change((p) => p.p99)}; PostgreSQL CPU µs per webhook ${change((p) => p.databaseMicros)} (target < 10 %)`);

    // (c) B resumes through the REST API while O keeps sending.
    const before = rounds.at(-1)!.without;
    const drainStart = backlogArrivals().length;
    let resumedAt = 0;
    const during = await measureOthers("B's backlog draining", DRAIN_SECONDS, false, async () => {
      await sleep(2_000);
      const response = await fetch(`${product.web.url}/api/v1/endpoints/${backlog.id}`, {
        method: "PATCH", headers: { authorization: `Bearer ${orgB.apiKey}`, "content-type": "application/json" }, body: JSON.stringify({ paused: false }),
      });
      if (response.status !== 200) throw new Error(`resume answered ${response.status}`);
      resumedAt = performance.timeOrigin + performance.now();
    });
    const drained = backlogArrivals().slice(drainStart);
    const lastAt = Math.max(...drained.map((id) => destination.arrivals.get(id)!.at));
    // Seeded in order: how far behind the furthest one already delivered does each arrive?
    let furthest = 0;
    let overtaken = 0;
    let worst = 0;
    for (const id of drained) {
      const seq = Number(id.slice(BACKLOG_ID_PREFIX.length));
      if (seq < furthest) {
        overtaken++;
        worst = Math.max(worst, furthest - seq);
      }
      furthest = Math.max(furthest, seq);
    }
    console.log(`\n(c) B's endpoint resumed (PATCH paused:false) 2 s into ${DRAIN_SECONDS} s of O's steady traffic\n`);
    console.log(HEADER);
    console.log(row(before).replace("| no paused backlog", "| before (b, no backlog)"));
    console.log(row(during));
    console.log(`B's backlog: ${drained.length} delivered by the end of (c) (${(drained.length / Math.max((lastAt - resumedAt) / 1000, 0.001)).toFixed(0)}/s from the resume); ` +
      `${overtaken} arrived after a later-seeded one (furthest back ${worst} places); ${drained.length === 0 ? 0 : furthest - drained.length} earlier-seeded ones not arrived yet; repeats at the destination ${destination.repeats()}`);
    console.log(`O meanwhile: delivered/s ${before.deliveredPerSecond.toFixed(0)} → ${during.deliveredPerSecond.toFixed(0)}, p99 ${before.p99.toFixed(1)} → ${during.p99.toFixed(1)} ms, PostgreSQL CPU µs per O webhook ${before.databaseMicros.toFixed(0)} → ${during.databaseMicros.toFixed(0)} (B's deliveries included)`);
    console.log(`\nload average at the end: ${load()} (other sessions' work included)`);
  } finally {
    await stopWorker(restarted);
    await bench.end();
  }

  /** B's backlog deliveries that reached the destination, in order of arrival. */
  function backlogArrivals(): string[] {
    return [...destination.arrivals.keys()].filter((id) => id.startsWith(BACKLOG_ID_PREFIX));
  }

  /** BACKLOG deliveries parked on the endpoint in order, as ingest stores them for a paused endpoint (no job). */
  async function seedBacklog(organizationId: string, endpointId: string): Promise<void> {
    const chunk = 20_000;
    for (let from = 1; from <= BACKLOG; from += chunk) {
      await bench`
        with d as (
          insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, size_bytes, received_at, parked_at)
          select ${BACKLOG_ID_PREFIX} || lpad(g::text, 7, '0'), ${organizationId}, ${endpointId}, 'dst_' || substr(${endpointId}, 4), 'backlog_' || g, 'backlog.event', 900,
            now() - interval '1 day' + g * interval '1 ms', now() - interval '1 day' + g * interval '1 ms'
          from generate_series(${from}::int, ${Math.min(BACKLOG, from + chunk - 1)}::int) g
          returning id, organization_id)
        insert into delivery_payloads (delivery_id, organization_id, headers, body, searchable)
        select id, organization_id, '{"content-type":"application/json"}', convert_to(${"b".repeat(900)}, 'UTF8'), true from d`;
    }
    // Vacuumed and analyzed now, as autovacuum would soon after such an insert: not inside the phase.
    await bench.unsafe("vacuum analyze deliveries");
    await bench.unsafe("vacuum analyze delivery_payloads");
  }

  /**
   * O's steady traffic for `seconds` (with `alongside` run meanwhile), then until every acknowledged
   * webhook has reached the destination (at most 120 s more); PostgreSQL's CPU over that whole span
   * per O webhook.
   */
  async function measureOthers(name: string, seconds: number, align: boolean, alongside?: () => Promise<void>): Promise<Phase> {
    if (align) {
      // Start so that a minute boundary (the sweeps' cron) falls inside the sending.
      const now = new Date();
      const intoMinute = now.getSeconds() + now.getMilliseconds() / 1000;
      await sleep(((((60 - Math.min(seconds, 50) / 2 - intoMinute) % 60) + 60) % 60) * 1000);
    }
    const cpu = await new CpuMeter({ database }).start();
    const sampling = setInterval(() => void cpu.sample().catch(() => {}), 1_000);
    try {
      const [sent] = await Promise.all([openLoop({ targets, rate: OTHER_RATE, seconds, tag: `o_${name.replace(/\W+/g, "_")}` }), alongside?.()]);
      for (const deadline = Date.now() + 120_000; sent.acknowledged.some((id) => !destination.arrivals.has(id)) && Date.now() < deadline; ) await sleep(50);
      const used = await cpu.stop();
      return phaseOf(name, sent, destination, used.database);
    } finally {
      clearInterval(sampling);
    }
  }
});

function phaseOf(name: string, sent: Awaited<ReturnType<typeof openLoop>>, destination: BenchDestination, databaseSeconds: number): Phase {
  const arrivals = sent.acknowledged.map((id) => destination.arrivals.get(id));
  const latencies = arrivals.flatMap((a) => (a && a.sentAt !== null ? [a.at - a.sentAt] : []));
  const last = Math.max(...arrivals.map((a) => a?.at ?? Infinity));
  const arrivedWhileSending = arrivals.filter((a) => a && a.at <= sent.lastDueAt).length;
  const { p50, p99 } = summarize(latencies);
  return {
    name, webhooks: sent.ok, failed: sent.sent - sent.ok,
    deliveredPerSecond: arrivedWhileSending / ((sent.lastDueAt - sent.firstDueAt) / 1000),
    p50, p99, lagSeconds: (last - sent.lastDueAt) / 1000,
    databaseMicros: (databaseSeconds * 1e6) / Math.max(1, sent.ok),
  };
}

const HEADER = "| phase | O webhooks | not 200 | O delivered/s while sending | send → destination p50 ms | p99 ms | last arrival after sending, s | PostgreSQL CPU µs per O webhook |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |";
const row = (p: Phase) =>
  `| ${p.name} | ${p.webhooks} | ${p.failed} | ${p.deliveredPerSecond.toFixed(0)} | ${p.p50.toFixed(1)} | ${p.p99.toFixed(1)} | ${p.lagSeconds.toFixed(1)} | ${p.databaseMicros.toFixed(0)} |`;
