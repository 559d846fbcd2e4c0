// Upgrade tests build a database as an older release left it: db/migrations cut just before one migration.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import { runMigrations } from "graphile-worker";
import postgres from "postgres";
import { afterAll, inject } from "vitest";
import { closeDb } from "@/db";
import { BODY_INDEX_TIME_BUCKET, type OnlineIndex } from "@/db/online-indexes";
import { buildOnlineIndexes } from "@/lib/runtime/build-online-indexes";
import { withDatabase } from "@/lib/runtime/database-url";
import { quietGraphileLogger } from "@/lib/runtime/migrate";

/** A copy of db/migrations whose journal ends just before migration `tag`; `remove()` deletes the copy. */
export function migrationsBefore(tag: string): { folder: string; remove: () => void } {
  const folder = mkdtempSync(path.join(os.tmpdir(), "inbox-migrations-"));
  cpSync(path.resolve("db/migrations"), folder, { recursive: true });
  const journalFile = path.join(folder, "meta", "_journal.json");
  const journal = JSON.parse(readFileSync(journalFile, "utf8")) as { entries: { tag: string }[] };
  const at = journal.entries.findIndex((entry) => entry.tag === tag);
  if (at <= 0) throw new Error(`no migration ${tag} after the first in db/migrations`);
  journal.entries = journal.entries.slice(0, at);
  writeFileSync(journalFile, JSON.stringify(journal));
  return { folder, remove: () => rmSync(folder, { recursive: true, force: true }) };
}

/**
 * For an upgrade test file: the migrations cut before `tag` (migrationsBefore), and `create()`, which makes an
 * empty database of the file's own and points DATABASE_URL (read lazily by db/index.ts) at it. Both are removed
 * after the file's tests.
 */
export function useUpgradeDatabase(tag: string): { older: { folder: string }; create: () => Promise<string> } {
  const name = `${inject("runPrefix")}_m${tag.slice(0, 4)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(inject("adminUrl"), { max: 1, onnotice: () => {} });
  const older = migrationsBefore(tag);
  afterAll(async () => {
    await closeDb();
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
    older.remove();
  });
  const create = async () => {
    await admin.unsafe(`create database "${name}"`);
    const url = withDatabase(inject("adminUrl"), name);
    process.env.DATABASE_URL = url;
    return url;
  };
  return { older, create };
}

/**
 * `sql`'s database (at `url`) as the release before `older`'s cut left it: our migrations up to there,
 * graphile-worker's, and `onlineIndexes` (those that release had; none by default).
 */
export async function migrateAsBefore(sql: postgres.Sql, url: string, older: { folder: string }, onlineIndexes: readonly OnlineIndex[] = []): Promise<void> {
  await migrate(drizzle({ client: sql }), { migrationsFolder: older.folder });
  await runMigrations({ connectionString: url, logger: quietGraphileLogger });
  await buildOnlineIndexes(sql, onlineIndexes);
}

/**
 * db/online-indexes.ts as releases before migration 0048 had it: the body's trigram index (0031's) where the word
 * index is now (it needs 0048's inbox_body_word_vector).
 */
export const onlineIndexesBefore0048 = (current: readonly OnlineIndex[]): OnlineIndex[] =>
  current.map((index) => index.name === "delivery_payloads_body_by_bucket_words_idx"
    ? {
      name: "delivery_payloads_body_by_bucket_trgm_idx",
      on: `"delivery_payloads" using gin (left("delivery_id", ${BODY_INDEX_TIME_BUCKET.length}), encode("body", 'escape') gin_trgm_ops) where "searchable" and octet_length("body") <= 65536`,
      replaces: ["delivery_payloads_body_by_time_trgm_idx", "delivery_payloads_body_searchable_trgm_idx", "delivery_payloads_body_trgm_idx"],
    }
    : index);

/** db/online-indexes.ts as releases before migration 0041 had it: without a destination's waiting index. */
export const onlineIndexesBefore0041 = (current: readonly OnlineIndex[]): OnlineIndex[] =>
  onlineIndexesBefore0048(current).filter((index) => index.name !== "deliveries_destination_waiting_idx");

/**
 * db/online-indexes.ts as releases before migration 0036 had it: without the indexes by destination (deliveries had
 * no destination_id; the ones by endpoint 0036's replace were then the migrations' own).
 */
export const onlineIndexesBefore0036 = (current: readonly OnlineIndex[]): OnlineIndex[] =>
  onlineIndexesBefore0041(current).filter((index) => !["deliveries_destination_parked_idx", "deliveries_destination_in_flight_idx"].includes(index.name));

/** db/online-indexes.ts as releases before migration 0033 had it: without 0033's index, whose predicate is 0033's function. */
export const onlineIndexesBefore0033 = (current: readonly OnlineIndex[]): OnlineIndex[] =>
  onlineIndexesBefore0036(current).filter((index) => index.name !== "deliveries_org_off_clock_idx");

/**
 * db/online-indexes.ts as releases before migration 0031 had it: the body's trigram index without the id's time
 * (0031's delivery_payloads_body_by_bucket_trgm_idx needs 0031's btree_gin).
 */
export function onlineIndexesBefore0031(current: readonly OnlineIndex[]): OnlineIndex[] {
  return onlineIndexesBefore0033(current).map((index) => index.name === "delivery_payloads_body_by_bucket_trgm_idx"
    ? {
      name: "delivery_payloads_body_searchable_trgm_idx",
      on: `"delivery_payloads" using gin (encode("body", 'escape') gin_trgm_ops) where "searchable" and octet_length("body") <= 65536`,
      replaces: ["delivery_payloads_body_trgm_idx"],
    }
    : index);
}
