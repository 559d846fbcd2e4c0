// bench/upgrade/destinations: what migration 0036 (destinations: every endpoint's default destination, every
// delivery's destination_id) costs on a database at 0035 with its online indexes built, holding BENCH_DELIVERIES
// (1,000,000) deliveries of 20 endpoints in this week's partition, a tenth of them waiting (pending, some parked):
// how long the migration holds writes (ingest answers 503 meanwhile), then how long the two online indexes by
// destination take to build (writes go on). The seed is SQL; the database is dropped at the end.
// Prints its figures; asserts nothing.
//   npm run bench:upgrade-destinations   env: BENCH_DELIVERIES (1000000), DATABASE_URL (the server; default the local one)
import { readFileSync } from "node:fs";
import os from "node:os";
import postgres from "postgres";
import { ONLINE_INDEXES } from "@/db/online-indexes";
import { newId } from "@/lib/ids";
import { buildOnlineIndexes } from "@/lib/runtime/build-online-indexes";
import { withDatabase } from "@/lib/runtime/database-url";
import { migrateDatabase } from "@/lib/runtime/migrate";
import { migrateAsBefore, migrationsBefore, onlineIndexesBefore0036 } from "@/test/migrations-before";

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 1_000_000);
const CHUNK = 100_000;
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const name = `bench_upgrade_dst_${Math.random().toString(36).slice(2, 8)}`;
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(2);

async function main() {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const older = migrationsBefore("0036_destinations");
  await admin.unsafe(`create database "${name}"`);
  const url = withDatabase(adminUrl, name);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrateAsBefore(sql, url, older, onlineIndexesBefore0036(ONLINE_INDEXES));
    await sql`insert into organizations (id, name) values ('org_b', 'Bench')`;
    await sql`insert into endpoints (id, organization_id, name, provider, destination_url)
      select 'ep_b' || lpad(e::text, 23, '0'), 'org_b', 'E' || e, 'none', 'https://example.com/' || e from generate_series(1, 20) e`;
    // Ids of today's time-ordered format, so the rows land in this week's partition as ingest's would.
    const prefix = newId("dlv").slice(0, 14);
    const seeding = performance.now();
    for (let from = 1; from <= DELIVERIES; from += CHUNK) {
      const to = Math.min(DELIVERIES, from + CHUNK - 1);
      await sql`insert into deliveries (id, organization_id, endpoint_id, external_id, event_type, status, size_bytes, received_at, updated_at,
          attempt_count, parked_at, pending_since)
        select ${prefix} || lpad(g::text, 15, '0'), 'org_b', 'ep_b' || lpad((g % 20 + 1)::text, 23, '0'), 'evt_' || md5(g::text), 'invoice.paid',
          case when g % 10 = 0 then 'pending' when g % 10 = 1 then 'dead' else 'delivered' end, 300,
          now() - (g || ' milliseconds')::interval, now() - (g || ' milliseconds')::interval, 1,
          case when g % 20 = 0 then now() end, now() - (g || ' milliseconds')::interval
        from generate_series(${from}::int, ${to}::int) g`;
    }
    await sql`vacuum analyze deliveries`;
    console.log(`bench/upgrade/destinations: ${DELIVERIES.toLocaleString("en")} deliveries seeded in ${seconds(seeding)} s`);
    await sql`select count(*) from deliveries`; // warm, as a running database's would be
    // The migration alone (drizzle's transaction, which holds writes), then the online indexes apart.
    const started = performance.now();
    await migrateDatabase(url, { onlineIndexes: [] });
    const held = seconds(started);
    const building = performance.now();
    await buildOnlineIndexes(sql, ONLINE_INDEXES);
    const built = seconds(building);
    const [parked] = await sql`select count(*)::int as n from parked_deliveries where destination_id like 'dst_%'`;
    console.log(`migration 0036: ${held} s with writes held; its online indexes (by destination) ${built} s, writes going on`);
    console.log(`after: ${parked!.n.toLocaleString("en")} parked rows by destination; load ${os.loadavg().map((l) => l.toFixed(2)).join(" ")}; ` +
      `server ${readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/)?.[1] ?? "?"}`);
  } finally {
    await sql.end();
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
    older.remove();
  }
}

void main().then(() => process.exit(0), (error) => {
  console.error(error);
  process.exit(1);
});
