// Two processes migrating one fresh database at once (two web machines starting together): both
// succeed and the schema is the one a single migration makes.
import postgres from "postgres";
import { afterAll, describe, expect, inject, it } from "vitest";
import { ONLINE_INDEXES } from "@/db/online-indexes";
import { withDatabase } from "./database-url";
import { migrateDatabase } from "./migrate";

const name = `${inject("runPrefix")}_concurrent_${Math.random().toString(36).slice(2, 8)}`;
const admin = postgres(inject("adminUrl"), { max: 1, onnotice: () => {} });

afterAll(async () => {
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

/** Everything the migrations make: columns, indexes (with validity), functions and their settings, applied migrations. */
async function schemaOf(url: string) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const schemas = ["public", "graphile_worker", "graphile_worker._private", "drizzle"];
    return {
      columns: await sql`select table_schema, table_name, column_name, data_type, is_nullable, column_default
        from information_schema.columns where table_schema in ${sql(schemas)} order by 1, 2, 3`,
      indexes: await sql`select n.nspname, c.relname, pg_get_indexdef(i.indexrelid) as definition, i.indisvalid
        from pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace
        where n.nspname in ${sql(schemas)} order by 1, 2`,
      functions: await sql`select n.nspname, p.proname, pg_get_function_identity_arguments(p.oid) as args, p.proconfig
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname in ${sql(schemas)} order by 1, 2, 3`,
      drizzle: await sql`select hash, created_at from drizzle.__drizzle_migrations order by id`,
      graphileWorker: await sql`select id, breaking from graphile_worker.migrations order by id`,
    };
  } finally {
    await sql.end();
  }
}

describe("two processes migrate one fresh database at once", () => {
  it("both succeed, and the schema is what one migration alone makes", async () => {
    await admin.unsafe(`create database "${name}"`);
    const url = withDatabase(inject("adminUrl"), name);
    // An online index too: two concurrent builds of one name would also collide.
    // With the real ones, so that the schema compares with the template's (migrated with them).
    const onlineIndexes = [...ONLINE_INDEXES, { name: "deliveries_concurrent_test_idx", on: "deliveries (endpoint_id, size_bytes)" }];

    const outcomes = await Promise.allSettled([migrateDatabase(url, { onlineIndexes }), migrateDatabase(url, { onlineIndexes })]);

    expect(outcomes.map((outcome) => (outcome.status === "rejected" ? String(outcome.reason) : "ok"))).toEqual(["ok", "ok"]);
    const migrated = await schemaOf(url);
    const template = await schemaOf(withDatabase(inject("adminUrl"), inject("templateDatabase")));
    // The test index, and its copy on each partition of deliveries.
    const withoutTestIndex = migrated.indexes.filter((index) => !index.relname.endsWith("_concurrent_test_idx"));
    expect(migrated.indexes.find((index) => index.relname === "deliveries_concurrent_test_idx")?.indisvalid).toBe(true);
    expect({ ...migrated, indexes: withoutTestIndex }).toEqual(template);
  });
});
