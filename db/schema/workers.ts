// The worker processes alive (lib/worker-health). Part of the one schema (db/schema.ts re-exports it).
import { integer, pgTable, text } from "drizzle-orm/pg-core";
import { tstz } from "./columns";

/** One row per running worker process, keyed by graphile-worker's pool id; see lib/worker-health. */
export const workerHeartbeats = pgTable("worker_heartbeats", {
  poolId: text().primaryKey(),
  hostname: text().notNull(),
  pid: integer().notNull(),
  startedAt: tstz().notNull().defaultNow(),
  lastSeenAt: tstz().notNull().defaultNow(),
});
