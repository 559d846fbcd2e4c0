// bench/rescue: what the every-minute rescue sweep (lib/delivery/engine/rescue-deliveries.ts) costs while
// one tenant's destination has been down for days. Org "Down" holds BENCH_BACKLOG (1,000,000) pending
// deliveries on one active endpoint, each waiting for a retry an hour away, seeded in SQL (no jobs: none is
// due within the bench, so none is looked up; no payloads: the sweep reads none). Two measures:
//   (1) the sweep alone, in this process: rescueDeliveries() BENCH_SWEEPS (5) times back to back, ms each;
//   (2) as deployed: the web server and the worker as `npm start` runs them, nothing sent; PostgreSQL CPU
//       (this database's backends) over BENCH_IDLE_MINUTES (3) whole minutes, each holding one run of the
//       cron's sweeps, first with no deliveries at all, then with the backlog.
// Prints its figures; asserts nothing.
//   npm run bench:rescue   env: BENCH_BACKLOG (1000000), BENCH_SWEEPS (5), BENCH_IDLE_MINUTES (3), BENCH_PORT (free ports)
import { loadavg } from "node:os";
import { getSql } from "@/db";
import { rescueDeliveries } from "@/lib/delivery/engine";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { createOrganizationFixture } from "@/test/fixtures";
import { CpuMeter } from "../support/cpu";
import { runBench, type BenchStage } from "../support/run-bench";

const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 1_000_000);
const SWEEPS = Number(process.env.BENCH_SWEEPS ?? 5);
const IDLE_MINUTES = Number(process.env.BENCH_IDLE_MINUTES ?? 3);
const SEED_CHUNK = 100_000;

const load = () => loadavg().map((n) => n.toFixed(1)).join(" ");

/** PostgreSQL CPU seconds a minute with the product idle, from the next minute boundary on (the cron runs at :00). */
async function idleDatabaseCpu(stage: BenchStage): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 60_000 - (Date.now() % 60_000) + 5_000));
  const meter = await new CpuMeter({ database: stage.database }).start();
  const sampling = setInterval(() => void meter.sample().catch(() => {}), 1_000);
  await new Promise((resolve) => setTimeout(resolve, IDLE_MINUTES * 60_000));
  clearInterval(sampling);
  const use = await meter.stop();
  return (use.database / use.seconds) * 60;
}

runBench("bench_rescue", async (stage) => {
  console.log(`bench/rescue: backlog ${BACKLOG.toLocaleString("en")} on one endpoint; load average ${load()}`);
  await stage.startProduct();
  const quiet = await idleDatabaseCpu(stage);
  console.log(`idle, no deliveries: PostgreSQL ${quiet.toFixed(2)} CPU s a minute (load ${load()})`);

  const org = await createOrganizationFixture("Down");
  const endpoint = await createEndpoint({
    ctx: org.ctx,
    input: { name: "down for days", provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/down" },
  });
  const seeding = performance.now();
  for (let from = 1; from <= BACKLOG; from += SEED_CHUNK) {
    await getSql()`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since,
        updated_at, next_attempt_at, attempt_count, auto_attempt_count, last_error)
      select 'dlv_down' || lpad(g::text, 21, '0'), ${org.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), 'evt_' || g, 'pending', 900,
        now() - interval '3 days' + g * interval '200 ms', now() - interval '3 days' + g * interval '200 ms',
        now() - interval '5 minutes', now() + interval '1 hour', 8, 8, 'connect ECONNREFUSED 127.0.0.1:9'
      from generate_series(${from}::int, ${Math.min(BACKLOG, from + SEED_CHUNK - 1)}::int) g`;
  }
  await getSql()`analyze deliveries`;
  console.log(`seeded in ${((performance.now() - seeding) / 1000).toFixed(0)} s`);

  const timings: number[] = [];
  for (let i = 0; i < SWEEPS; i++) {
    const started = performance.now();
    const result = await rescueDeliveries();
    timings.push(performance.now() - started);
    if (result.orphaned + result.lapsed > 0) console.log(`  sweep ${i + 1} re-queued ${result.orphaned + result.lapsed}`);
  }
  console.log(`the sweep alone: ${timings.map((ms) => ms.toFixed(1)).join(", ")} ms`);

  const backlogged = await idleDatabaseCpu(stage);
  console.log(`idle, backlog of ${BACKLOG.toLocaleString("en")}: PostgreSQL ${backlogged.toFixed(2)} CPU s a minute (load ${load()})`);
});
