// Brings a database to the current schema: our drizzle-kit SQL migrations, then graphile-worker's.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { Logger, runMigrations } from "graphile-worker";
import postgres from "postgres";

const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../db/migrations");

/** graphile-worker logs at info level for every step; keep warnings and errors only. */
export const quietGraphileLogger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning") console.error(`[graphile-worker] ${message}`);
});

export async function migrateDatabase(url: string): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migrate(drizzle({ client }), { migrationsFolder });
  } finally {
    await client.end();
  }
  await runMigrations({ connectionString: url, logger: quietGraphileLogger });
}
