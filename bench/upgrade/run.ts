// bench/upgrade: how long migration 0027 (deliveries, payloads and attempts partitioned by week) holds writes
// on a database at 0026 with its online indexes built, holding BENCH_DELIVERIES (1,000,000) settled
// deliveries of 20 endpoints with ~300-byte payloads and one attempt for every third: ingest answers 503 for
// that long. The seed is SQL, ids of the random format; the database is dropped at the end.
// Prints its figures; asserts nothing.
//   npm run bench:upgrade   env: BENCH_DELIVERIES (1000000), DATABASE_URL (the server; default the local one)
import postgres from "postgres";
import { ONLINE_INDEXES } from "@/db/online-indexes";
import { withDatabase } from "@/lib/runtime/database-url";
import { migrateDatabase } from "@/lib/runtime/migrate";
import { migrateAsBefore, migrationsBefore, onlineIndexesBefore0031 } from "@/test/migrations-before";

const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 1_000_000);
const CHUNK = 100_000;
const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const name = `bench_upgrade_${Math.random().toString(36).slice(2, 8)}`;
const seconds = (since: number) => ((performance.now() - since) / 1000).toFixed(2);

async function main() {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const older = migrationsBefore("0027_delivery_partitions");
  await admin.unsafe(`create database "${name}"`);
  const url = withDatabase(adminUrl, name);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrateAsBefore(sql, url, older, onlineIndexesBefore0031(ONLINE_INDEXES));
    await sql`insert into organizations (id, name) values ('org_b', 'Bench')`;
    await sql`insert into endpoints (id, organization_id, name, provider, destination_url)
      select 'ep_b' || e, 'org_b', 'E' || e, 'none', 'https://example.com/' || e from generate_series(1, 20) e`;
    const seeding = performance.now();
    for (let from = 1; from <= DELIVERIES; from += CHUNK) {
      const to = Math.min(DELIVERIES, from + CHUNK - 1);
      await sql`insert into deliveries (id, organization_id, endpoint_id, external_id, event_type, status, size_bytes, received_at, updated_at, attempt_count)
        select 'dlv_' || substr(md5(g::text), 1, 25), 'org_b', 'ep_b' || (g % 20 + 1), 'evt_' || md5(g::text), 'invoice.paid',
          case when g % 10 = 0 then 'dead' else 'delivered' end, 300, now() - (g || ' seconds')::interval, now() - (g || ' seconds')::interval, 1
        from generate_series(${from}::int, ${to}::int) g`;
      await sql`insert into delivery_payloads (delivery_id, organization_id, headers, body, searchable)
        select 'dlv_' || substr(md5(g::text), 1, 25), 'org_b', '{"content-type":"application/json"}',
          convert_to('{"id":"evt_' || md5(g::text) || '","type":"invoice.paid","data":{"object":{"customer":"cus_' || (g % 5000) || '","amount":' || g || ',"note":"' || repeat(md5((g * 7)::text), 5) || '"}}}', 'UTF8'), true
        from generate_series(${from}::int, ${to}::int) g`;
      await sql`insert into attempts (organization_id, delivery_id, number, trigger, started_at, duration_ms, status_code)
        select 'org_b', 'dlv_' || substr(md5(g::text), 1, 25), 1, 'auto', now() - (g || ' seconds')::interval, 40, 200
        from generate_series(${from}::int, ${to}::int) g where g % 3 = 0`;
    }
    await sql`vacuum analyze deliveries`;
    await sql`vacuum analyze delivery_payloads`;
    await sql`vacuum analyze attempts`;
    console.log(`bench/upgrade: ${DELIVERIES.toLocaleString("en")} deliveries seeded in ${seconds(seeding)} s`);
    // Warm: the tables read once, as a running database's would be (as far as shared_buffers and the page cache hold them).
    await sql`select count(*) from deliveries`;
    await sql`select count(*) from delivery_payloads`;
    const started = performance.now();
    await migrateDatabase(url);
    console.log(`migration 0027 (and the partitions ahead): ${seconds(started)} s with writes held`);
    const [keys] = await sql`select count(*)::int as n from delivery_keys`;
    const [legacy] = await sql`select count(*)::int as n from deliveries_legacy`;
    console.log(`after: ${keys!.n.toLocaleString("en")} keys, ${legacy!.n.toLocaleString("en")} deliveries in deliveries_legacy`);
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
