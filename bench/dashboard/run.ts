// bench/dashboard: the dashboard's queries on a million deliveries. Creates its own database on DATABASE_URL's
// server, migrates it, seeds 1,000,000 deliveries (bench/dashboard/seed.ts), then calls the real lib verbs the
// pages call, each ~50 times, and prints p50/p95 per query and the EXPLAIN (ANALYZE, BUFFERS) of every SQL
// statement each one sent (captured through drizzle's logger). Prints its figures; asserts nothing.
//   npm run bench:dashboard
//   BENCH_ROWS=n          deliveries to seed (default 1,000,000)
//   BENCH_RUNS=n          timed runs per query (default 50)
//   BENCH_SEED_CONNECTIONS=n  connections loading the seed at once (default 2)
//   BENCH_DATABASE=name   use (and keep) this database; seeded only when it has no deliveries yet
//   BENCH_SEED_ONLY=1     stop after seeding (seed a kept database while the machine is busy, time it when quiet)
import { randomBytes } from "node:crypto";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { closeDb, NO_JIT, schema, type Db } from "@/db";
import { createCtx, type Ctx } from "@/lib/context";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { getEndpointStats } from "@/lib/endpoints/get-endpoint-stats";
import { getOverview } from "@/lib/endpoints/get-overview";
import { readDeliveryMetrics } from "@/lib/metrics/read-delivery-metrics";
import { encodeCursor } from "@/lib/pagination";
import { withDatabase } from "@/lib/runtime/database-url";
import { migrateDatabase } from "@/lib/runtime/migrate";
import { refreshDeliveryIdFloors } from "@/lib/storage/delivery-id-floor";
import { seedDeliveries, vocabularyWord } from "./seed";
import { createTenants, type BenchTenant } from "./tenants";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const LOADERS = Number(process.env.BENCH_SEED_CONNECTIONS ?? 2);
const PAGE = 50; // the deliveries page's size (app/(dashboard)/deliveries/page.tsx)
const TARGET_P95_MS = 150;

interface Statement { query: string; params: unknown[] }
interface BenchQuery { name: string; run: (ctx: Ctx) => Promise<unknown>; ctx?: Ctx; raw?: boolean }
interface Result { name: string; statements: Statement[]; p50: number; p95: number; max: number; rows: string }

const captured: Statement[] = [];
let capturing = false;

const log = (line: string) => console.log(line);
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const RANKS = new Map(Array.from({ length: 65_536 }, (_, k) => [vocabularyWord(k), k] as const));

/** The rarest vocabulary word (of 6+ letters) in a body: at least one match, as few as the data allows. */
function rarestWordIn(text: string): string {
  const words = text.split(/[^a-z]+/).filter((w) => w.length >= 6 && RANKS.has(w));
  return words.reduce((rarest, w) => (RANKS.get(w)! > RANKS.get(rarest)! ? w : rarest));
}

/** A word of the vocabulary near rank k, at least 6 ASCII letters (short words are substrings of many others). */
function wordNear(k: number): string {
  for (let i = k; ; i++) if (/^[a-z]{6,}$/.test(vocabularyWord(i))) return vocabularyWord(i);
}

function describeResult(value: unknown): string {
  if (value && typeof value === "object" && "data" in value && Array.isArray((value as { data: unknown[] }).data)) {
    const page = value as { data: unknown[]; nextCursor: string | null };
    return `${page.data.length}${page.nextCursor ? "+" : ""}`;
  }
  if (Array.isArray(value)) return `${value.length} endpoints`;
  if (value && typeof value === "object" && "endpoints" in value) return `${(value as { endpoints: unknown[] }).endpoints.length} endpoints`;
  return "1";
}

async function measure(query: BenchQuery, ctx: Ctx): Promise<Result> {
  const run = () => query.run(query.ctx ?? ctx);
  for (let i = 0; i < 3; i++) await run(); // warm: plans cached, pages in shared buffers like a dashboard in use
  captured.length = 0;
  capturing = true;
  const rows = describeResult(await run());
  capturing = false;
  const statements = [...captured];
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { name: query.name, statements, p50: percentile(times, 50), p95: percentile(times, 95), max: times.at(-1)!, rows };
}

function queries(tenants: BenchTenant[], extras: { externalId: string; orderId: string; email: string; rareWord: string; deepCursor: string; page2Cursor: string; dayAgo10: Date }): BenchQuery[] {
  const [acme] = tenants;
  const endpoint = (name: string) => acme!.endpoints.find((e) => e.name === name)!.id;
  const list = (name: string, input: Parameters<typeof listDeliveries>[0]["input"]) => ({ name, run: (ctx: Ctx) => listDeliveries({ ctx, input: { limit: PAGE, ...input } }) });
  const since = extras.dayAgo10.toISOString();
  const until = new Date(extras.dayAgo10.getTime() + 86_400_000).toISOString();
  return [
    list("list: first page", {}),
    list("list: page 2 (cursor)", { cursor: extras.page2Cursor }),
    list("list: page 15 days back (cursor)", { cursor: extras.deepCursor }),
    list("list: endpoint (biggest)", { endpointId: endpoint("payments") }),
    list("list: endpoint (smallest) + dead", { endpointId: endpoint("crm"), status: "dead" }),
    list("filter: status dead", { status: "dead" }),
    list("filter: status pending", { status: "pending" }),
    list("filter: status delivering", { status: "delivering" }),
    list("filter: event type common", { eventType: "invoice.paid" }),
    list("filter: event type rare", { eventType: "payout.paid" }),
    list("filter: event type absent", { eventType: "no.such.type" }),
    list("filter: event type prefix common (invoice.*)", { eventType: "invoice.*" }),
    list("filter: event type prefix rare (payout.*)", { eventType: "payout.*" }),
    list("filter: event type prefix absent (no.such.*)", { eventType: "no.such.*" }),
    list("filter: 1-day range, 10 days ago", { since, until }),
    list("filter: range + dead + endpoint", { since, until, status: "dead", endpointId: endpoint("billing") }),
    list(`search: very common word "${wordNear(3)}"`, { q: wordNear(3) }),
    list(`search: common word "${wordNear(60)}"`, { q: wordNear(60) }),
    // A body holds rank k with odds ~9.9 / (k + 1) (seed.ts: two paragraphs of ~55 words, P(k) ∝ 1/(k+1)): ~1 % at 990.
    list(`search: ~1% word "${wordNear(990)}"`, { q: wordNear(990) }),
    list(`search: ~0.5% word "${wordNear(1500)}"`, { q: wordNear(1500) }),
    list(`search: ~0.2% word "${wordNear(5000)}"`, { q: wordNear(5000) }),
    list(`search: rare word "${extras.rareWord}" (rank ${RANKS.get(extras.rareWord)})`, { q: extras.rareWord }),
    list("search: absent word", { q: "zqxjvkw" }),
    list(`search: lowercase of a capitalised word, 2% ("müller")`, { q: "müller" }),
    list(`search: lowercase of a rare capitalised word, 0.004% ("zanzibar")`, { q: "zanzibar" }),
    list(`search: uppercase of a common word "${wordNear(60).toUpperCase()}"`, { q: wordNear(60).toUpperCase() }),
    list(`search: uppercase of a rare word "${extras.rareWord.toUpperCase()}"`, { q: extras.rareWord.toUpperCase() }),
    list(`search: customer e-mail (~5 bodies)`, { q: extras.email }),
    list("search: order id (1 body)", { q: extras.orderId }),
    list("search: external id", { q: extras.externalId }),
    list("search: external id, upper case", { q: extras.externalId.toUpperCase() }),
    list("search: event type substring", { q: "dispute" }),
    list("search: rare word + endpoint", { q: extras.rareWord, endpointId: endpoint("payments") }),
    list("search: common word, page 2", { q: wordNear(60), cursor: extras.page2Cursor }),
    { name: "stats: biggest endpoint", run: (ctx) => getEndpointStats({ ctx, input: { id: endpoint("payments") } }) },
    { name: "stats: failing endpoint", run: (ctx) => getEndpointStats({ ctx, input: { id: endpoint("checkout") } }) },
    { name: "stats: smallest endpoint", run: (ctx) => getEndpointStats({ ctx, input: { id: endpoint("crm") } }) },
    { name: "overview (4 endpoints)", run: (ctx) => getOverview({ ctx }) },
    { name: "metrics: read (all 9 endpoints)", run: () => readDeliveryMetrics({ sql: metricsSql! }), raw: true },
  ];
}

let metricsSql: postgres.Sql | undefined;

async function explain(sql: postgres.Sql, statement: Statement): Promise<string> {
  try {
    const rows = await sql.unsafe(`explain (analyze, buffers) ${statement.query}`, statement.params as postgres.ParameterOrJSON<never>[]);
    return rows.map((r) => r["QUERY PLAN"]).join("\n");
  } catch (error) {
    return `(explain failed: ${(error as Error).message})`;
  }
}

async function main() {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const keep = process.env.BENCH_DATABASE;
  const databaseName = keep ?? `inbox_bench_dashboard_${randomBytes(4).toString("hex")}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const exists = (await admin`select 1 from pg_database where datname = ${databaseName}`).length > 0;
  if (!exists) await admin.unsafe(`create database "${databaseName}"`);
  const databaseUrl = withDatabase(adminUrl, databaseName);
  process.env.DATABASE_URL = databaseUrl;
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  // Sessions as the product's pools open them (db/index.ts): without JIT, which compiled a search's one
  // statement estimated past jit_above_cost for ~90 ms on every run.
  const raw = postgres(databaseUrl, { max: 2, onnotice: () => {}, connection: NO_JIT });
  const client = postgres(databaseUrl, { max: 4, onnotice: () => {}, connection: NO_JIT });
  metricsSql = postgres(databaseUrl, {
    max: 2, onnotice: () => {}, connection: NO_JIT,
    debug: (_connection, query, params) => {
      if (capturing && !/^\s*(begin|commit|rollback)/i.test(query)) captured.push({ query, params });
    },
  });
  try {
    log(`bench/dashboard: database ${databaseName} on ${new URL(adminUrl).host}`);
    await migrateDatabase(databaseUrl);
    let tenants: BenchTenant[];
    const seeded = Number((await raw`select count(*) from deliveries`)[0]!.count);
    if (seeded === 0) {
      tenants = await createTenants();
      const started = Date.now();
      const loaders = Array.from({ length: LOADERS }, () => postgres(databaseUrl, { max: 1, onnotice: () => {} }));
      try {
        // Triggers and foreign-key checks off for the load (superuser); the metrics counters (and the parked
        // deliveries' table) are then backfilled from the deliveries, the way the migrations did for rows stored before them.
        for (const loader of loaders) await loader.unsafe("set session_replication_role = replica");
        await seedDeliveries(loaders, tenants.flatMap((t) => t.endpoints), ROWS, log);
        await loaders[0]!.unsafe(`insert into delivery_counters (endpoint_id, organization_id, destination_id, event, attempts, count)
          select endpoint_id, organization_id, destination_id, 'received', 0, count(*) from deliveries group by 1, 2, 3
          union all
          select endpoint_id, organization_id, destination_id, status, attempt_count, count(*) from deliveries
          where status in ('delivered', 'dead') group by 1, 2, 3, 4, 5`);
        // The per-minute counts the roll-up keeps (25 hours): the overview's receipts and the stats' last hour.
        await loaders[0]!.unsafe(`insert into delivery_counts_by_minute (endpoint_id, destination_id, event, minute, count)
          select endpoint_id, destination_id, 'received', date_trunc('minute', received_at), count(*) from deliveries
          where received_at > now() - interval '25 hours' group by 1, 2, 4
          union all
          select endpoint_id, destination_id, 'delivered', date_trunc('minute', delivered_at), count(*) from deliveries
          where delivered_at > now() - interval '25 hours' group by 1, 2, 4`);
        // And parked_deliveries, which its triggers keep (none parked in this seed today; the parked index finds them).
        await loaders[0]!.unsafe("insert into parked_deliveries (destination_id, delivery_id) select destination_id, id from deliveries where parked_at is not null");
      } finally {
        await Promise.all(loaders.map((loader) => loader.end()));
      }
      // The rebuilt indexes lost their statistics targets (the word index's are 0): a migrate sets them again.
      await migrateDatabase(databaseUrl);
      // A table in service has been vacuumed and analyzed by autovacuum; a freshly loaded one has not. And its
      // organizations' floors were set by the worker's hourly refresh: their reads plan only their weeks.
      await raw.unsafe("vacuum (analyze)");
      await refreshDeliveryIdFloors({ sql: raw });
      log(`seeded ${ROWS.toLocaleString("en")} deliveries, indexes built, vacuum analyze: ${((Date.now() - started) / 1000).toFixed(0)} s`);
      if (process.env.BENCH_SEED_ONLY === "1") return;
    } else {
      tenants = await tenantsOf(raw);
      log(`reusing ${seeded.toLocaleString("en")} deliveries already in ${databaseName}`);
    }

    const db: Db = drizzle({
      client, schema, casing: "snake_case",
      logger: { logQuery: (query, params) => { if (capturing) captured.push({ query, params }); } },
    });
    const acme = tenants[0]!;
    const ctx = createCtx(acme.organizationId, { type: "system" }, db);
    const first = await listDeliveries({ ctx, input: { limit: PAGE } });
    const [sample] = await raw<{ external_id: string; order_id: string; email: string; text: string }[]>`
      select external_id, substring(encode(p.body, 'escape') from 'ord_[0-9]+') as order_id,
             substring(encode(p.body, 'escape') from 'user[0-9]+@example[.]com') as email, encode(p.body, 'escape') as text
      -- The 12,346th oldest delivery, or the next with an order id (the binary bodies have none): found through
      -- the organization's index, not by joining and sorting every payload (at 10M that spilled 40 GB to disk).
      from (select id, external_id, received_at from deliveries where organization_id = ${acme.organizationId}
            order by received_at limit 100 offset 12345) d
      join delivery_payloads p on p.delivery_id = d.id
      where encode(p.body, 'escape') like '%ord_%'
      order by d.received_at limit 1`;
    const dayAgo10 = new Date(Date.now() - 10 * 86_400_000);
    const deep = await raw<{ at: string; id: string }[]>`
      select to_char(received_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, id from deliveries
      where organization_id = ${acme.organizationId} and received_at < now() - interval '15 days'
      order by received_at desc nulls last, id desc nulls last limit 1`;
    const extras = { externalId: sample!.external_id, orderId: sample!.order_id, email: sample!.email, rareWord: rarestWordIn(sample!.text), page2Cursor: first.nextCursor!, deepCursor: encodeCursor(deep[0]!.at, deep[0]!.id), dayAgo10 };

    const sizes = await raw<{ total: string; heap: string }[]>`
      select pg_size_pretty(sum(pg_total_relation_size(t.relid))) as total,
             pg_size_pretty(sum(pg_relation_size(t.relid)) filter (where t.root = 'deliveries')) as heap
      -- A partitioned table's size is its partitions'.
      from (select 'deliveries' as root, relid from pg_partition_tree('deliveries')
            union all select 'delivery_payloads', relid from pg_partition_tree('delivery_payloads')) t`;
    const counts = await raw<{ org: string; n: string }[]>`select organization_id as org, count(*) as n from deliveries group by 1 order by 2 desc`;
    log(`deliveries: ${sizes[0]!.total} with payloads and indexes (deliveries' heap ${sizes[0]!.heap}); per organization: ${counts.map((c) => Number(c.n).toLocaleString("en")).join(", ")}`);
    log(`timing ${RUNS} runs per query after 3 warm-up runs, organization Acme (${Number(counts.find((c) => c.org === acme.organizationId)!.n).toLocaleString("en")} deliveries), pages of ${PAGE}\n`);

    const results: Result[] = [];
    for (const query of queries(tenants, extras)) results.push(await measure(query, ctx));

    log(`| query | SQL statements | rows | p50 ms | p95 ms | max ms | p95 ≤ ${TARGET_P95_MS} ms |`);
    log("| --- | ---: | ---: | ---: | ---: | ---: | :---: |");
    for (const r of results) {
      log(`| ${r.name} | ${r.statements.length} | ${r.rows} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.max.toFixed(1)} | ${r.p95 <= TARGET_P95_MS ? "yes" : "NO"} |`);
    }
    log("\nEXPLAIN (ANALYZE, BUFFERS) of each statement, with the parameters of the captured run:");
    for (const r of results) {
      for (const [i, statement] of r.statements.entries()) {
        log(`\n── ${r.name}${r.statements.length > 1 ? ` [statement ${i + 1}/${r.statements.length}]` : ""}`);
        log(statement.query.replace(/\s+/g, " ").trim());
        log(`params: ${JSON.stringify(statement.params).slice(0, 300)}`);
        log(await explain(raw, statement));
      }
    }
  } finally {
    await Promise.all([raw.end(), client.end(), metricsSql.end(), closeDb()]);
    if (!keep) await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
    await admin.end();
  }
}

/** The tenants of a kept database, in the order createTenants made them. */
async function tenantsOf(sql: postgres.Sql): Promise<BenchTenant[]> {
  const rows = await sql<{ organization_id: string; org: string; id: string; name: string }[]>`
    select e.organization_id, o.name as org, e.id, e.name from endpoints e join organizations o on o.id = e.organization_id
    order by o.created_at, e.created_at`;
  const tenants = new Map<string, BenchTenant>();
  for (const row of rows) {
    if (!tenants.has(row.organization_id)) {
      tenants.set(row.organization_id, { organizationId: row.organization_id, name: row.org, endpoints: [] } as unknown as BenchTenant);
    }
    tenants.get(row.organization_id)!.endpoints.push({ id: row.id, name: row.name, organizationId: row.organization_id, share: 0, failing: false, eventTypes: [], userAgent: "" });
  }
  return [...tenants.values()];
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
