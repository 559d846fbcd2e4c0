// What the dashboard's indexes (db/migrations/0003, 0004) cost the write paths: ingest's group-commit
// statement (the real GroupCommitter: insert + add_jobs in one statement) and the worker's two updates per
// delivery (claim: pending → delivering; finish: → delivered), on a database migrated only up to 0002
// ("before") and on one fully migrated ("after"), each already holding the same seeded deliveries so the
// indexes have a realistic depth. Alternates before/after twice to spread the machine's noise.
// Prints its figures; asserts nothing.
//   npx tsx bench/dashboard/insert-cost.ts    (BENCH_PRESEED=rows, default 200,000; BENCH_INSERTS=n, default 20,000;
//   BENCH_VARIANTS="no body word index,no counter triggers": also copies of
//   "after" changed that way, to see what each part costs)
import { defaultLanes } from "@/lib/destinations/route-request";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { runMigrations } from "graphile-worker";
import postgres from "postgres";
import { closeDb } from "@/db";
import { GroupCommitter, type NewDelivery } from "@/lib/ingest/group-commit";
import { newId } from "@/lib/ids";
import { withDatabase } from "@/lib/runtime/database-url";
import { quietGraphileLogger } from "@/lib/runtime/migrate";
import { seedDeliveries, vocabularyWord } from "./seed";
import { createTenants } from "./tenants";

const PRESEED = Number(process.env.BENCH_PRESEED ?? 200_000);
const INSERTS = Number(process.env.BENCH_INSERTS ?? 20_000);
const UPDATES = Math.min(INSERTS, 5_000);
const LAST_BEFORE = 2; // 0002_delivery_claims_and_parking: the schema before this work

const log = (line: string) => console.log(line);
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/** Our migrations up to `last` (index in the journal), then graphile-worker's. */
async function migrateUpTo(url: string, last: number): Promise<void> {
  const source = path.resolve("db/migrations");
  const folder = mkdtempSync(path.join(os.tmpdir(), "inbox-migrations-"));
  try {
    cpSync(source, folder, { recursive: true });
    const journal = JSON.parse(readFileSync(path.join(folder, "meta/_journal.json"), "utf8"));
    journal.entries = journal.entries.filter((entry: { idx: number }) => entry.idx <= last);
    writeFileSync(path.join(folder, "meta/_journal.json"), JSON.stringify(journal));
    const client = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrate(drizzle({ client }), { migrationsFolder: folder });
    } finally {
      await client.end();
    }
    await runMigrations({ connectionString: url, logger: quietGraphileLogger });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** A ~0.6–2 KB JSON body of Zipf-distributed words, like the seeded ones. */
function body(i: number): Buffer {
  const words = (n: number) => Array.from({ length: n }, () => vocabularyWord(Math.min(65_535, Math.floor(Math.exp(Math.random() * Math.log(65_536))) - 1))).join(" ");
  return Buffer.from(JSON.stringify({
    id: `evt_${randomBytes(12).toString("hex")}`, type: "invoice.paid", created: Math.floor(Date.now() / 1000),
    data: { object: { id: `ord_${i}`, customer: { email: `user${i % 200_000}@example.com` }, description: words(20 + (i % 70)), notes: words(20 + ((i * 7) % 70)) } },
  }));
}

async function ingest(sql: postgres.Sql, endpoint: { id: string; organizationId: string }, outstanding: number, bodies: Buffer[]) {
  const committer = new GroupCommitter(() => sql, { timeoutMs: 30_000, statementTimeoutMs: 10_000, maxBatch: 500, maxConcurrent: 4 });
  const latencies: number[] = [];
  const ids: string[] = [];
  let next = 0;
  const started = performance.now();
  async function lane() {
    while (next < bodies.length) {
      const i = next++;
      const id = newId("dlv");
      const delivery: NewDelivery = {
        id, organizationId: endpoint.organizationId, endpointId: endpoint.id, lanes: defaultLanes(id, endpoint.id), externalId: `msg_${id}`, eventType: "invoice.paid",
        headers: { "content-type": "application/json", "webhook-id": `msg_${id}` }, body: bodies[i]!, sourceIp: "203.0.113.9",
      };
      const t = performance.now();
      await committer.store(delivery);
      latencies.push(performance.now() - t);
      ids.push(id);
    }
  }
  await Promise.all(Array.from({ length: outstanding }, lane));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: bodies.length / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies.at(-1)!, ids };
}

/** The worker's writes per delivery, as single-row statements on 4 connections: claim, then finish. */
async function updates(sql: postgres.Sql, ids: string[]) {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  async function lane() {
    while (next < ids.length) {
      const id = ids[next++]!;
      for (const statement of [
        sql`update deliveries set status = 'delivering', attempt_count = attempt_count + 1, auto_attempt_count = auto_attempt_count + 1,
              claimed_by_job = '123', lease_expires_at = now() + interval '1 minute', updated_at = now() where id = ${id}`,
        sql`update deliveries set status = 'delivered', delivered_at = now(), last_status_code = 200, last_error = null,
              claimed_by_job = null, lease_expires_at = null, next_attempt_at = null, updated_at = now() where id = ${id}`,
      ]) {
        const t = performance.now();
        await statement;
        latencies.push(performance.now() - t);
      }
    }
  }
  await Promise.all(Array.from({ length: 4 }, lane));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: latencies.length / seconds, p50: pct(latencies, 50), p95: pct(latencies, 95) };
}

async function prepare(adminUrl: string, name: string, last: number) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  await admin.end();
  const url = withDatabase(adminUrl, name);
  await migrateUpTo(url, last);
  process.env.DATABASE_URL = url;
  const tenants = await createTenants();
  await closeDb();
  const seeder = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await seeder.unsafe("set session_replication_role = replica");
    await seedDeliveries([seeder], tenants.flatMap((t) => t.endpoints), PRESEED, () => {});
    await seeder.unsafe("reset session_replication_role");
    await seeder.unsafe("vacuum (analyze) deliveries");
  } finally {
    await seeder.end();
  }
  const endpoint = tenants[0]!.endpoints[0]!;
  return { name, url, endpoint: { id: endpoint.id, organizationId: endpoint.organizationId } };
}

/** Variants of the "after" schema, to see what each part costs (cloned from it, then changed by `sql`). */
const VARIANTS = (process.env.BENCH_VARIANTS ?? "").split(",").filter(Boolean);
const VARIANT_SQL: Record<string, string> = {
  "no body word index": "drop index delivery_payloads_body_by_bucket_words_idx",
  "no body or event-type index": "drop index delivery_payloads_body_by_bucket_words_idx; drop index deliveries_event_type_trgm_idx",
  "no counter triggers": "drop trigger deliveries_count_inserted on deliveries; drop trigger deliveries_count_outcome on deliveries",
};
async function main() {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  const databases: string[] = [];
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    log(`bench/dashboard/insert-cost: ${PRESEED.toLocaleString("en")} deliveries preloaded in each database, ${INSERTS.toLocaleString("en")} ingested per run, ${UPDATES.toLocaleString("en")} × 2 worker updates`);
    const suffix = randomBytes(3).toString("hex");
    databases.push(`inbox_bench_insert_before_${suffix}`, `inbox_bench_insert_after_${suffix}`);
    const before = await prepare(adminUrl, databases[0]!, LAST_BEFORE);
    const after = await prepare(adminUrl, databases[1]!, Infinity);
    const targets: { label: string; url: string; endpoint: typeof after.endpoint }[] = [
      { label: "before (0002)", url: before.url, endpoint: before.endpoint },
      { label: "after (0004)", url: after.url, endpoint: after.endpoint },
    ];
    for (const [i, variant] of VARIANTS.entries()) {
      const name = `inbox_bench_insert_v${i}_${suffix}`;
      databases.push(name);
      await admin.unsafe(`create database "${name}" template "${after.name}"`);
      const url = withDatabase(adminUrl, name);
      const sql = postgres(url, { max: 1, onnotice: () => {} });
      await sql.unsafe(VARIANT_SQL[variant] ?? variant);
      await sql.end();
      targets.push({ label: `after, ${variant}`, url, endpoint: after.endpoint });
    }
    const bodies = Array.from({ length: INSERTS }, (_, i) => body(i));
    log(`bodies: ${(bodies.reduce((sum, b) => sum + b.length, 0) / bodies.length).toFixed(0)} bytes on average\n`);
    log("| round | schema | ingest, 50 waiting: deliveries/s | store p50 / p99 / max ms | ingest, 1000 waiting: deliveries/s | store p50 / p99 / max ms | worker updates/s | update p50 / p95 ms |");
    log("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (let round = 1; round <= 2; round++) {
      for (const target of targets) {
        const sql = postgres(target.url, { max: 5, onnotice: () => {} });
        try {
          const half = Math.floor(bodies.length / 2);
          const small = await ingest(sql, target.endpoint, 50, bodies.slice(0, half));
          const burst = await ingest(sql, target.endpoint, 1000, bodies.slice(half));
          const worker = await updates(sql, small.ids.slice(0, UPDATES));
          const ms = (r: { p50: number; p99: number; max: number }) => `${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} / ${r.max.toFixed(0)}`;
          log(`| ${round} | ${target.label} | ${small.perSecond.toFixed(0)} | ${ms(small)} | ${burst.perSecond.toFixed(0)} | ${ms(burst)} | ${worker.perSecond.toFixed(0)} | ${worker.p50.toFixed(2)} / ${worker.p95.toFixed(2)} |`);
        } finally {
          await sql.end();
        }
      }
    }
  } finally {
    await closeDb();
    for (const name of databases) await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
