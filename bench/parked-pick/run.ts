// bench/parked-pick: what another organization's year of weeks costs the worker's pick of an endpoint's oldest
// parked delivery (the form a wake, a chain's finish and a claim naming none share: WAKE_PARKED, FINISH and
// CLAIM in lib/delivery/engine/sql/), as the worker runs it: a prepared statement, generic plan
// (db/index.ts hotPathPlanCacheMode). Two fresh databases: one with this week's partitions only, one where
// "Keeper" keeps BENCH_WEEKS (52) past weeks (bench/support/kept-weeks.ts); in each, "Recent" has 20 deliveries
// parked this week. The pick is timed with the floor parameter '' (every week's partition opened, as before the
// floors), with Recent's delivery id floor (lib/storage/delivery-id-floor.ts: pruned as the plan starts, after
// it has locked every partition), and with the floor and its week written in the text too (batch-id-range.ts
// fromWeek: pruned as the plan is made), alternating in rounds on one connection. Prints its figures; asserts nothing.
//   npm run bench:parked-pick [BENCH_WEEKS=52 BENCH_RUNS=500 BENCH_ROUNDS=6]
import postgres from "postgres";
import { closeDb } from "@/db";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { fromWeek, weekStartOf } from "@/lib/storage/batch-id-range";
import { deliveryIdFloor, refreshDeliveryIdFloors } from "@/lib/storage/delivery-id-floor";
import { createOrganizationFixture } from "@/test/fixtures";
import { createBenchDatabase } from "../support/database";
import { keepPastWeeks } from "../support/kept-weeks";
import { percentile } from "../support/stats";

const WEEKS = Number(process.env.BENCH_WEEKS ?? 52);
const RUNS = Number(process.env.BENCH_RUNS ?? 500);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);

const pick = (from: string) => `
  select d.id from deliveries d
  where d.destination_id = $1 and d.parked_at is not null
    and d.id between (select min(pk.delivery_id) from parked_deliveries pk where pk.destination_id = $1)
      and (select max(pk.delivery_id) from parked_deliveries pk where pk.destination_id = $1)
    and d.id >= $2::text ${fromWeek("d.id", from)}
  order by d.parked_at, d.id limit 1
  for update skip locked`;

interface Timed { label: string; partitions: number; ms: number[] }

// createBenchDatabase points DATABASE_URL at the database it makes; the next one is made on the same server.
const serverUrl = process.env.DATABASE_URL;

async function measureIn(keptWeeks: number): Promise<Timed[]> {
  if (serverUrl) process.env.DATABASE_URL = serverUrl;
  else delete process.env.DATABASE_URL;
  const database = await createBenchDatabase("inbox_bench_parked_pick");
  const sql = postgres(database.url, { max: 1, onnotice: () => {}, connection: { plan_cache_mode: "force_generic_plan" } });
  try {
    await keepPastWeeks(sql, { weeks: keptWeeks, perWeek: 100, floors: "unset" });
    const recent = await createOrganizationFixture("Recent");
    const endpoint = await createEndpoint({ ctx: recent.ctx, input: { name: "parked", provider: "none", destinationUrl: "http://127.0.0.1:9/hook" } });
    const destinationId = defaultDestinationId(endpoint.id);
    await sql`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, parked_at)
      select inbox_time_ordered_id_floor('dlv', now()) || lpad(g::text, 15, '0'), ${recent.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4),
        'evt_parked_' || g, 'pending', 2, now() + make_interval(secs => g)
      from generate_series(1, 20) g`;
    await refreshDeliveryIdFloors({ sql });
    const floor = await deliveryIdFloor(recent.ctx.db, recent.organizationId);
    if (!floor) throw new Error("Recent's delivery id floor was not set");
    const [{ partitions }] = await sql<{ partitions: number }[]>`select count(*)::int as partitions from pg_inherits where inhparent = 'deliveries'::regclass`;
    const variants: Timed[] = [
      { label: "'' (every week)", partitions, ms: [] },
      { label: "the floor", partitions, ms: [] },
      { label: "the floor, and its week in the text", partitions, ms: [] },
    ];
    const floors = ["", floor, floor];
    const texts = [pick(""), pick(""), pick(weekStartOf(floor))];
    for (let i = 0; i < 10; i++) for (const [v, f] of floors.entries()) await sql.unsafe(texts[v]!, [destinationId, f], { prepare: true }); // plans made, partitions loaded
    for (let round = 0; round < ROUNDS; round++) {
      for (const [v, f] of floors.entries()) {
        for (let i = 0; i < RUNS; i++) {
          const start = performance.now();
          const rows = await sql.unsafe(texts[v]!, [destinationId, f], { prepare: true });
          variants[v]!.ms.push(performance.now() - start);
          if (rows.length !== 1) throw new Error(`the pick found ${rows.length} deliveries, not 1`);
        }
      }
    }
    return variants;
  } finally {
    await sql.end();
    await closeDb();
    await database.drop();
  }
}

const results = [...(await measureIn(0)), ...(await measureIn(WEEKS))];
console.log(`bench/parked-pick: an endpoint's oldest parked delivery picked by the worker's prepared statement (generic plan), ${ROUNDS} rounds of ${RUNS} each, alternated`);
console.log("| partitions of deliveries | reads from | p50 ms | p95 ms |");
console.log("| ---: | --- | ---: | ---: |");
for (const r of results) {
  const sorted = [...r.ms].sort((a, b) => a - b);
  console.log(`| ${r.partitions} | ${r.label} | ${percentile(sorted, 50).toFixed(3)} | ${percentile(sorted, 95).toFixed(3)} |`);
}
process.exit(0);
