// bench/overview-backlog: what the overview costs an organization whose destination has been down all day, and
// another organization meanwhile. The product as deployed (bench/support: a fresh database, the web server and
// the worker as `npm start` runs them; the worker's roll-up folds the counter events), with:
//   - org D: one paused endpoint holding BENCH_BACKLOG deliveries received over the last 23 hours, parked as
//     ingest stores them for a paused endpoint; a third retrying (two failed attempts before the pause), one in
//     100 dead (the destination refused them), the rest never tried;
//   - org H: 4 healthy endpoints, BENCH_HEALTHY deliveries each over the same hours, all delivered.
// Then each organization's overview (getOverview, as the page calls it) BENCH_RUNS times: p50, p95, and the
// deliveries entries and rows one call reads. Prints its figures; asserts nothing.
//   npm run bench:overview-backlog   env: BENCH_BACKLOG (1000000), BENCH_HEALTHY (20000), BENCH_RUNS (30)
import { cpus, loadavg } from "node:os";
import postgres from "postgres";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { getOverview } from "@/lib/endpoints/get-overview";
import { countingReads } from "@/test/counting-reads";
import { createOrganizationFixture } from "@/test/fixtures";
import { BENCH_APPLICATION_NAME } from "../support/cpu";
import { runBench } from "../support/run-bench";
import { percentile } from "../support/stats";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const BACKLOG = env("BENCH_BACKLOG", 1_000_000);
const HEALTHY = env("BENCH_HEALTHY", 20_000);
const RUNS = env("BENCH_RUNS", 30);
const HEALTHY_ENDPOINTS = 4;
const SPAN_MS = 23 * 3_600_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

runBench("inbox_bench_overview", async ({ database, destination, startProduct }) => {
  // The bench's own queries (seeding, watching), not counted as the product's.
  const bench = postgres(database.url, { max: 1, onnotice: () => {}, connection: { application_name: BENCH_APPLICATION_NAME } });
  try {
    const [down, healthy] = [await createOrganizationFixture("D (down all day)"), await createOrganizationFixture("H (healthy)")];
    const endpointOf = (org: typeof down, name: string, paused: boolean) =>
      createEndpoint({ ctx: org.ctx, input: { name, provider: "standard-webhooks", destinationUrl: destination.url, paused } });
    const paused = await endpointOf(down, "down", true);
    const fine = [];
    for (let i = 0; i < HEALTHY_ENDPOINTS; i++) fine.push(await endpointOf(healthy, `healthy-${i}`, false));
    const product = await startProduct({ workerEnv: { DELIVERY_LOG: "problems" } });
    console.log(`bench/overview-backlog: web server and worker as npm start runs them, PostgreSQL and this bench on this ${cpus().length}-core machine; load average ${loadavg().map((n) => n.toFixed(1)).join(" ")}`);

    const started = Date.now();
    await seed(down.organizationId, paused.id, BACKLOG, "down");
    for (const [i, endpoint] of fine.entries()) await seed(healthy.organizationId, endpoint.id, HEALTHY, `ok${i}`);
    await bench.unsafe("vacuum analyze deliveries");
    console.log(`seeded ${BACKLOG.toLocaleString("en")} on D's paused endpoint and ${(HEALTHY * HEALTHY_ENDPOINTS).toLocaleString("en")} on H's in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    // The worker's roll-up (every minute) folds the seed's counter events, as it would a day's.
    for (let waited = 0; waited < 180; waited += 5) {
      const [{ n }] = await bench<{ n: number }[]>`select count(*)::int as n from delivery_counter_events`;
      if (n === 0) break;
      await sleep(5_000);
    }

    console.log(`\n| organization | overview p50 ms | p95 ms | deliveries entries + rows read a call |\n| --- | ---: | ---: | ---: |`);
    for (const [name, org] of [["D, a day's backlog", down], ["H, healthy", healthy]] as const) {
      const ms: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const t0 = performance.now();
        await getOverview({ ctx: org.ctx });
        ms.push(performance.now() - t0);
      }
      ms.sort((a, b) => a - b);
      const { entries } = await countingReads(org.ctx, "deliveries", (ctx) => getOverview({ ctx }));
      console.log(`| ${name} | ${percentile(ms, 50).toFixed(1)} | ${percentile(ms, 95).toFixed(1)} | ${entries.toLocaleString("en")} |`);
    }
    await product.stop();
  } finally {
    await bench.end();
  }

  /** `count` deliveries of the endpoint received over the last SPAN_MS, in chunks; parked when its endpoint is paused. */
  async function seed(organizationId: string, endpointId: string, count: number, tag: string): Promise<void> {
    const chunk = 100_000;
    const step = SPAN_MS / count;
    for (let from = 0; from < count; from += chunk) {
      // Ids made at their receipt, as ingest makes them (lib/ids.ts): the time, then 15 characters of their own.
      await bench`
        insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, size_bytes, status, received_at, pending_since, updated_at,
          parked_at, attempt_count, auto_attempt_count)
        select inbox_time_ordered_id_floor('dlv', t) || ${tag} || lpad(g::text, ${15 - tag.length}::int, '0'), ${organizationId}, ${endpointId}, 'dst_' || substr(${endpointId}, 4), ${tag} || '_' || g,
          'bench.event', 900, case when ${tag === "down"} then (case when g % 100 = 0 then 'dead' else 'pending' end) else 'delivered' end,
          t, t, now(), case when ${tag === "down"} and g % 100 <> 0 then t end,
          case when g % 3 = 0 or ${tag !== "down"} then 2 else 0 end, case when g % 3 = 0 or ${tag !== "down"} then 2 else 0 end
        from generate_series(${from}::int, ${Math.min(count, from + chunk) - 1}::int) g,
          lateral (select now() - ${SPAN_MS} * interval '1 ms' + g * ${step}::float8 * interval '1 ms' as t) r`;
    }
  }
});
