// The naive's own database, beside the product's on the same server: graphile-worker's schema
// (installed by its runMigrations, as its run() would on first start) and one table of its own. A
// database of its own, so that the CpuMeter counts its backends the way it counts the product's.
import { Logger, runMigrations } from "graphile-worker";
import postgres from "postgres";
import { withDatabase } from "@/lib/runtime/database-url";

/** graphile-worker says every step at info level; the naive keeps its warnings and errors. */
export const naiveGraphileLogger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") console.error(`naive [graphile-worker] ${message}`);
});

export interface NaiveDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Creates `<name>` on the server `admin` is connected to (`serverUrl`: any database on it), with the naive's schema. */
export async function createNaiveDatabase(admin: postgres.Sql, serverUrl: string, name: string): Promise<NaiveDatabase> {
  await admin.unsafe(`create database "${name}"`);
  const url = withDatabase(serverUrl, name);
  const drop = async () => {
    await admin.unsafe(`drop database if exists "${name}" with (force)`).catch((error) => console.error(`dropping ${name}: ${String(error)}`));
  };
  try {
    await runMigrations({ connectionString: url, logger: naiveGraphileLogger });
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      // What a first version would write: the webhook as received, deduplicated per endpoint by its id.
      await sql`
        create table webhooks (
          id bigint generated always as identity primary key,
          endpoint text not null,
          webhook_id text not null,
          headers jsonb not null,
          body text not null,
          received_at timestamptz not null default now(),
          delivered_at timestamptz,
          unique (endpoint, webhook_id)
        )`;
    } finally {
      await sql.end();
    }
  } catch (error) {
    await drop();
    throw error;
  }
  return { name, url, drop };
}
