// bench/retention/weeks: a week of expired deliveries removed by dropping its partitions against the same
// number removed by the sweep's row deletes, each beside ingest. The product runs as deployed (web server and
// worker with its cron, settings at their defaults) on a fresh database with a destination answering 200.
// Two organizations hold BENCH_ROWS (1,000,000) settled deliveries each, 40–100 days old, with payloads, keys
// and attempts (bench/retention/seed.ts): "Rows" in the partitions of the week after next, "Weeks" in those of
// the week after that (weeks ahead: a database migrated today holds every earlier id in its legacy partition).
// Both keep 365 days until their phase. Org "Live" is sent BENCH_RATE signed webhooks a second throughout.
//   - no sweep: BENCH_SECONDS of ingest alone;
//   - rows: Rows keeps 30 days; the worker's cron sweeps it by row deletes (its partitions are not past)
//     until nothing of it is left;
//   - weeks: Weeks keeps 30 days; the sweep (lib/retention/apply-retention.ts, run here with `now` the week
//     after, so that its week is past; the cron's own runs take turns with it through the sweep's lock) runs
//     until the week is dropped.
// Prints per phase: ingest achieved and p99, how long the removal took, rows a second, and CPU by process.
// Asserts nothing.
//   npm run bench:retention-weeks   (BENCH_ROWS=1000000, BENCH_RATE=300, BENCH_SECONDS=30, BENCH_CONNECTIONS=50, BENCH_PORT)
import { loadavg } from "node:os";
import postgres from "postgres";
import { closeDb, getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { timeOrderedIdFloor } from "@/lib/ids";
import { applyRetention } from "@/lib/retention/apply-retention";
import { makeDeliveryPartitions } from "@/lib/storage/delivery-partitions";
import { createOrganizationFixture } from "@/test/fixtures";
import { inWeekAt } from "@/test/partition-weeks";
import { CpuMeter, type CpuUse } from "../support/cpu";
import { flood, type Flood } from "../support/flood";
import { runBench } from "../support/run-bench";
import { seedSettledDeliveries } from "./seed";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RATE = Number(process.env.BENCH_RATE ?? 300);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface Removal { removed: number; seconds: number }
interface Phase extends Removal { name: string; ingest: Flood[]; cpu: CpuUse }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

runBench("inbox_bench_weeks", async ({ database, destination, startProduct }) => {
  process.env.DATABASE_URL = database.url;
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  const seedSql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    await makeDeliveryPartitions(getSql(), 3);
    const live = await createOrganizationFixture("Live");
    const liveEndpoint = await createEndpoint({ ctx: live.ctx, input: { name: "live", provider: "standard-webhooks", destinationUrl: destination.url } });
    const orgs = { rows: { week: 2 }, weeks: { week: 3 } };
    const seeded: Record<keyof typeof orgs, { organizationId: string }> = {} as never;
    for (const [name, { week }] of Object.entries(orgs) as [keyof typeof orgs, { week: number }][]) {
      const org = await createOrganizationFixture(name === "rows" ? "Rows" : "Weeks");
      await getSql()`update organizations set retention_days = 365 where id = ${org.organizationId}`;
      const endpoint = await createEndpoint({ ctx: org.ctx, input: { name, provider: "none", destinationUrl: destination.url } });
      const started = performance.now();
      await seedSettledDeliveries(seedSql, {
        organizationId: org.organizationId, endpointId: endpoint.id, count: ROWS, oldestDays: 100, newestDays: 40,
        idPrefix: timeOrderedIdFloor("dlv", inWeekAt(week).getTime()), log: () => {},
      });
      console.log(`seeded ${ROWS.toLocaleString("en")} deliveries of ${name} in week +${week} in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      seeded[name] = org;
    }
    const setRetention = (organizationId: string, days: number) => getSql()`update organizations set retention_days = ${days} where id = ${organizationId}`;
    const left = async (organizationId: string) => (await getSql()<{ n: number }[]>`select count(*)::int as n from deliveries where organization_id = ${organizationId}`)[0]!.n;

    const product = await startProduct({ webEnv: { ORG_INGEST_RATE: String(RATE * 10) } });
    const meter = () => new CpuMeter({ processes: { web: product.web.child.pid, worker: product.worker.pid }, database: { admin: database.admin, name: database.name } }).start();
    const liveUrl = `${product.web.url}/in/${liveEndpoint.id}`;
    const load = (seconds: number) => flood(liveUrl, liveEndpoint.secret!, seconds, CONNECTIONS);
    console.log(`Live sends ${RATE} signed req/s on ${CONNECTIONS} connections; web server, worker, PostgreSQL and load generator on this machine`);
    await load(5); // warm-up

    /** Ingest in back-to-back stretches of SECONDS while `removal` runs (at least one stretch). */
    const phase = async (name: string, removal: () => Promise<number>): Promise<Phase> => {
      const cpu = await meter();
      const sampler = setInterval(() => void cpu.sample().catch(() => {}), 1_000);
      const started = performance.now();
      let done: Removal | undefined;
      const removing = removal().then((removed) => (done = { removed, seconds: (performance.now() - started) / 1000 }));
      const ingest: Flood[] = [];
      do ingest.push(await load(SECONDS));
      while (!done);
      await removing;
      clearInterval(sampler);
      return { name, ingest, ...done, cpu: await cpu.stop() };
    };

    const phases: Phase[] = [];
    phases.push(await phase("no sweep", async () => 0));
    phases.push(
      await phase("rows (the cron's sweep)", async () => {
        const before = await left(seeded.rows.organizationId);
        await setRetention(seeded.rows.organizationId, 30);
        while ((await left(seeded.rows.organizationId)) > 0) await sleep(1_000);
        return before;
      }),
    );
    phases.push(
      await phase("weeks (one week dropped)", async () => {
        const before = await left(seeded.weeks.organizationId);
        await setRetention(seeded.weeks.organizationId, 30);
        const later = inWeekAt(orgs.weeks.week + 1, 1);
        let runs = 0;
        for (;;) {
          const run = await applyRetention({ now: later });
          if (run.ran) runs++;
          if (run.weeksDropped.deliveries > 0 || (await left(seeded.weeks.organizationId)) === 0) break;
          await sleep(run.ran ? 0 : 500);
        }
        console.log(`weeks: ${runs} sweep run(s) until the week was dropped`);
        return before;
      }),
    );

    console.log("\n| phase | stretches | Live achieved/s | Live p99 ms (worst stretch) | non-200 | removed | removal took s | removed/s | web | worker | PostgreSQL (this db) | machine busy (of 2 cores) |");
    console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    // CPU over the whole phase: the ingest stretches, which outlast a quick removal, included.
    for (const p of phases) {
      const requests = p.ingest.reduce((sum, f) => sum + f.requests, 0);
      const ok = p.ingest.reduce((sum, f) => sum + (f.statusCodes["200"]?.count ?? 0), 0);
      const rate = p.ingest.reduce((sum, f) => sum + f.perSecond, 0) / p.ingest.length;
      const cores = (x: number) => (x / p.cpu.seconds).toFixed(2);
      console.log(
        `| ${p.name} | ${p.ingest.length} | ${rate.toFixed(0)} | ${Math.max(...p.ingest.map((f) => f.p99))} | ${requests - ok} | ${p.removed.toLocaleString("en")} | ${p.seconds.toFixed(0)} | ` +
          `${p.removed ? (p.removed / p.seconds).toFixed(0) : "–"} | ${cores(p.cpu.processes.web ?? 0)} | ${cores(p.cpu.processes.worker ?? 0)} | ${cores(p.cpu.database)} | ${cores(p.cpu.machine)} |`,
      );
    }
    // The removal's share of PostgreSQL's CPU: the phase's less what ingest alone used at the same rate.
    const quiet = phases[0]!;
    for (const p of phases.slice(1)) {
      const extra = p.cpu.database - (quiet.cpu.database / quiet.cpu.seconds) * p.cpu.seconds;
      console.log(`${p.name}: PostgreSQL ${((extra / Math.max(1, p.removed)) * 1e6).toFixed(0)} µs of CPU per delivery removed, over ingest alone's`);
    }
    console.log(`\nmachine: load average ${loadavg().map((n) => n.toFixed(1)).join(" ")}`);
  } finally {
    await seedSql.end();
    await closeDb();
  }
});
