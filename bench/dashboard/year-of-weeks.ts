// bench/dashboard/year-of-weeks: what one organization keeping a year of deliveries costs another's dashboard.
// A fresh database with BENCH_WEEKS (default 52) weeks of partitions made ahead; "Keeper" (retention 365) holds
// BENCH_KEEPER_PER_WEEK deliveries (default 2,000) in every one of those weeks, "Recent" (retention 30) holds
// BENCH_RECENT_ROWS (default 20,000) in the last three. (The weeks are ahead of the calendar: a fresh database's
// legacy partition holds every id before its migration; the floors are refreshed with `now` in the last week.)
// Each organization's dashboard and API reads (the real lib verbs) are timed with the delivery id floors unset
// ('', every partition planned, as before them) and set (lib/storage/delivery-id-floor.ts), in alternating rounds
// on the same connections; and the first query of a new connection, which loads every partition it plans.
// Prints its figures; asserts nothing.
//   npm run bench:dashboard-year [BENCH_RUNS=30 BENCH_ROUNDS=2]
import postgres from "postgres";
import { createDb } from "@/db";
import { createCtx, type Ctx } from "@/lib/context";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { getEndpointStats } from "@/lib/endpoints/get-endpoint-stats";
import { getOverview } from "@/lib/endpoints/get-overview";
import { refreshDeliveryIdFloors } from "@/lib/storage/delivery-id-floor";
import { createOrganizationFixture } from "@/test/fixtures";
import { inWeekAt, monday } from "@/test/partition-weeks";
import { createBenchDatabase } from "../support/database";
import { percentile } from "../support/stats";

const WEEKS = Number(process.env.BENCH_WEEKS ?? 52);
const KEEPER_PER_WEEK = Number(process.env.BENCH_KEEPER_PER_WEEK ?? 2_000);
const RECENT_ROWS = Number(process.env.BENCH_RECENT_ROWS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const COLD_CONNECTIONS = 5;
const EVENT_TYPES = ["invoice.paid", "charge.succeeded", "customer.updated", "payout.paid"];

interface Tenant { name: string; ctx: Ctx; endpointId: string }

async function tenant(name: string, retentionDays: number, sql: postgres.Sql): Promise<Tenant> {
  const org = await createOrganizationFixture(name);
  await sql`update organizations set retention_days = ${retentionDays} where id = ${org.organizationId}`;
  const endpoint = await createEndpoint({ ctx: org.ctx, input: { name: "main", provider: "none", destinationUrl: "http://127.0.0.1:9/hook" } });
  return { name, ctx: org.ctx, endpointId: endpoint.id };
}

/** `count` deliveries spread evenly over weeks `from`..`to` ahead, 1 in 100 with "needle" in its body; 2 % dead, 1 % pending. */
async function seed(sql: postgres.Sql, t: Tenant, fromWeek: number, toWeek: number, count: number): Promise<void> {
  const start = inWeekAt(fromWeek).getTime() - 12 * 3_600_000;
  const spanMs = (toWeek - fromWeek + 1) * 7 * 86_400_000;
  await sql`
    with src as (
      select g, to_timestamp((${start}::float8 + (g + 0.5) * ${spanMs / count}::float8) / 1000) as at from generate_series(0, ${count - 1}) g
    ), d as (
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, status, size_bytes, received_at, updated_at)
      select inbox_time_ordered_id_floor('dlv', at) || lpad(g::text, 15, '0'), ${t.ctx.organizationId}, ${t.endpointId}, 'dst_' || substr(${t.endpointId}, 4), 'evt_' || md5(${t.name} || g),
        (${EVENT_TYPES}::text[])[1 + g % ${EVENT_TYPES.length}], case when g % 100 = 7 then 'pending' when g % 50 = 3 then 'dead' else 'delivered' end, 80, at, at
      from src returning id, organization_id, received_at
    )
    insert into delivery_payloads (delivery_id, organization_id, headers, body, searchable)
    select id, organization_id, '{}', convert_to(json_build_object('note', 'alpha bravo ' || case when right(id, 2) = '00' then 'needle' else 'hay' end,
      'at', received_at)::text, 'UTF8'), true from d`;
}

function reads(t: Tenant): { name: string; run: (ctx: Ctx) => Promise<unknown> }[] {
  const list = (name: string, input: Parameters<typeof listDeliveries>[0]["input"]) => ({ name, run: (ctx: Ctx) => listDeliveries({ ctx, input: { limit: 50, ...input } }) });
  return [
    list("list: first page", {}),
    list("filter: status dead", { status: "dead" }),
    list("filter: event type", { eventType: "payout.paid" }),
    list("search: word in every body", { q: "bravo" }),
    list("search: 1 % word", { q: "needle" }),
    { name: "stats: endpoint", run: (ctx) => getEndpointStats({ ctx, input: { id: t.endpointId } }) },
    { name: "overview", run: (ctx) => getOverview({ ctx }) },
  ];
}

async function timed(run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 3; i++) await run();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times;
}

async function main() {
  process.env.DELIVERY_PARTITION_WEEKS_AHEAD = String(WEEKS);
  const database = await createBenchDatabase("inbox_bench_dashboard_year");
  const sql = postgres(database.url, { max: 2, onnotice: () => {} });
  const client = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const [{ partitions }] = await sql<{ partitions: number }[]>`select count(*)::int as partitions from pg_inherits where inhparent = 'deliveries'::regclass`;
    console.log(`bench/dashboard-year: database ${database.name}, ${partitions} partitions of deliveries (weeks ${monday(0)}–${monday(WEEKS)})`);
    const keeper = await tenant("Keeper", 365, sql);
    const recent = await tenant("Recent", 30, sql);
    const started = Date.now();
    await seed(sql, keeper, 0, WEEKS, KEEPER_PER_WEEK * (WEEKS + 1));
    await seed(sql, recent, WEEKS - 2, WEEKS, RECENT_ROWS);
    await sql.unsafe("vacuum (analyze)");
    console.log(`seeded Keeper ${(KEEPER_PER_WEEK * (WEEKS + 1)).toLocaleString("en")} deliveries over ${WEEKS + 1} weeks, Recent ${RECENT_ROWS.toLocaleString("en")} over the last 3: ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const now = inWeekAt(WEEKS, 3);
    const db = createDb(client);
    const results = new Map<string, { unset: number[]; set: number[] }>();
    const cold = { unset: [] as number[], set: [] as number[] };
    const refreshMs = { fromUnset: [] as number[], again: 0 };
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ["unset", "set"] as const) {
        if (mode === "unset") await sql`update organizations set delivery_id_floor = ''`;
        else {
          const started = performance.now();
          await refreshDeliveryIdFloors({ sql, now });
          refreshMs.fromUnset.push(performance.now() - started);
        }
        for (const t of [recent, keeper]) {
          const ctx = createCtx(t.ctx.organizationId, { type: "system" }, db);
          for (const read of reads(t)) {
            const key = `${t.name} | ${read.name}`;
            const entry = results.get(key) ?? { unset: [], set: [] };
            entry[mode].push(...(await timed(() => read.run(ctx))));
            results.set(key, entry);
          }
        }
        for (let i = 0; i < COLD_CONNECTIONS; i++) {
          const fresh = postgres(database.url, { max: 1, onnotice: () => {} });
          await fresh`select 1`;
          const started = performance.now();
          await listDeliveries({ ctx: createCtx(recent.ctx.organizationId, { type: "system" }, createDb(fresh)), input: { limit: 50 } });
          cold[mode].push(performance.now() - started);
          await fresh.end();
        }
      }
    }
    const againStarted = performance.now();
    await refreshDeliveryIdFloors({ sql, now });
    refreshMs.again = performance.now() - againStarted;
    console.log(`refresh of the floors: ${refreshMs.fromUnset.map((ms) => ms.toFixed(0)).join(", ")} ms from '', ${refreshMs.again.toFixed(1)} ms again`);
    const floors = await sql<{ name: string; floor: string }[]>`select name, delivery_id_floor as floor from organizations order by name`;
    console.log(`floors (set): ${floors.map((f) => `${f.name} ${f.floor || "''"}`).join(", ")}`);
    const ms = (values: number[], p: number) => percentile([...values].sort((a, b) => a - b), p).toFixed(1);
    console.log(`\n| organization · read | p50 unset → set (ms) | p95 unset → set (ms) |\n| --- | ---: | ---: |`);
    for (const [key, { unset, set }] of results) console.log(`| ${key} | ${ms(unset, 50)} → ${ms(set, 50)} | ${ms(unset, 95)} → ${ms(set, 95)} |`);
    console.log(`| Recent · first page on a new connection (${cold.unset.length} each) | ${ms(cold.unset, 50)} → ${ms(cold.set, 50)} | ${ms(cold.unset, 95)} → ${ms(cold.set, 95)} |`);
  } finally {
    await client.end();
    await sql.end();
    await database.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
