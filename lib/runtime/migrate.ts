// Brings a database to the current schema: our drizzle-kit SQL migrations, then graphile-worker's, then
// the indexes built online (db/online-indexes.ts) and the delivery partitions ahead, one process at a time.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { Logger, runMigrations } from "graphile-worker";
import postgres from "postgres";
import { ONLINE_INDEXES, type OnlineIndex } from "@/db/online-indexes";
import { buildOnlineIndexes } from "./build-online-indexes";
import { planAddJobsAfresh } from "@/lib/queue/queue-tables";
import { refreshDeliveryIdFloors } from "@/lib/storage/delivery-id-floor";
import { makeDeliveryPartitions } from "@/lib/storage/delivery-partitions";
import { logger } from "@/lib/logging/logger";

const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../db/migrations");

/** graphile-worker logs at info level for every step; keep warnings and errors only. */
export const quietGraphileLogger = new Logger(() => (level, message) => {
  // Said when the pool is smaller than concurrency; our tasks use the app's pool, not graphile-worker's (lib/runtime/run-worker.ts).
  if (message.startsWith("WARNING: having maxPoolSize")) return;
  if (level === "error") logger.error(`[graphile-worker] ${message}`);
  else if (level === "warning") logger.warn(`[graphile-worker] ${message}`);
});

/** `onlineIndexes`: db/online-indexes.ts unless told otherwise (tests). */
export async function migrateDatabase(url: string, { onlineIndexes = ONLINE_INDEXES }: { onlineIndexes?: readonly OnlineIndex[] } = {}): Promise<void> {
  const client = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await withMigrationLock(client, async () => {
      await migrate(drizzle({ client }), { migrationsFolder });
      await runMigrations({ connectionString: url, logger: quietGraphileLogger });
      await planAddJobsAfresh(client);
      await buildOnlineIndexes(client, onlineIndexes);
      // The weeks ahead, also for a database that was down while they came due.
      await makeDeliveryPartitions(client);
      // And the organizations' delivery id floors: after the upgrade to 0030, each organization's queries plan
      // only its own weeks from the start, not after the worker's first hourly refresh.
      await refreshDeliveryIdFloors({ sql: client });
    });
  } finally {
    await client.end();
  }
}

const MIGRATION_LOCK = "webhook-inbox:migrate";
const LOCK_POLL_MS = 250;

/**
 * Several processes may migrate one database at once (npm start, start:web on each web machine,
 * db:migrate): two drizzle migrators both read "nothing applied" and both run every migration, and
 * one fails. A session advisory lock (on `client`'s one connection, held across its transactions)
 * lets one migrate while the others wait, then find nothing left to do. They wait by trying again,
 * not in pg_advisory_lock: a statement waiting there holds a snapshot, and CREATE INDEX CONCURRENTLY
 * under the lock waits for every older snapshot in the database, so the two would deadlock.
 */
async function withMigrationLock(client: postgres.Sql, fn: () => Promise<void>): Promise<void> {
  for (let waited = false; ; waited = true) {
    const [{ locked }] = await client<{ locked: boolean }[]>`select pg_try_advisory_lock(hashtextextended(${MIGRATION_LOCK}, 0)) as locked`;
    if (locked) break;
    if (!waited) logger.info("[migrate] another process is migrating this database; waiting for it");
    await new Promise((resolve) => setTimeout(resolve, LOCK_POLL_MS));
  }
  try {
    await fn();
  } finally {
    // Ending the connection releases it too: a failed unlock must not hide what fn threw.
    await client`select pg_advisory_unlock(hashtextextended(${MIGRATION_LOCK}, 0))`.catch(() => {});
  }
}
