// Applies db/online-indexes.ts: each index built with CREATE INDEX CONCURRENTLY unless a valid one of
// that name exists. Runs under the migration lock (lib/runtime/migrate.ts), so no other migrator is
// building the same index: an invalid one found here is what an interrupted build left behind.
//
// A partitioned table (deliveries, delivery_payloads, attempts: db/schema/deliveries.ts) takes no
// CONCURRENTLY: each partition's index is built concurrently, then the parent's is made ON ONLY (invalid,
// and copied to every partition made from then on) and each partition's attached to it; the parent's is
// valid once the last one is. A partition's index is named as the migrations name them: the partition's
// name, then the index's name after the table's (deliveries_legacy_endpoint_waiting_idx).
import type postgres from "postgres";
import type { OnlineIndex } from "@/db/online-indexes";
import { withLockTimeout } from "@/lib/storage/lock-timeout";
import { logger } from "@/lib/logging/logger";

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
/** Progress notes; the CLI, which migrates too, sends log lines to stderr (its stdout is its JSON answer, API.md). */
const note = (message: string) => logger.info(`[migrate] ${message}`);

/** `sql` must not be inside a transaction (CONCURRENTLY refuses to run in one). */
export async function buildOnlineIndexes(sql: postgres.Sql, indexes: readonly OnlineIndex[]): Promise<void> {
  for (const index of indexes) {
    const existing = await indexState(sql, index.name);
    if (existing?.valid) {
      await keepWithoutStatistics(sql, index);
      await dropReplaced(sql, index);
      continue;
    }
    const { table, definition } = splitOn(index);
    if (await partitionsOf(sql, table)) {
      await buildOnPartitions(sql, index, table, definition);
    } else {
      if (existing) {
        // Left INVALID by a build that was cancelled or whose process died: writers keep maintaining it, readers never use it.
        note(`index ${index.name} was left invalid by an interrupted build; building it again`);
        await sql.unsafe(`drop index concurrently if exists ${quoted(index.name)}`);
      }
      note(`building index ${index.name} concurrently`);
      await sql.unsafe(`create index concurrently ${quoted(index.name)} on ${index.on}`);
    }
    await keepWithoutStatistics(sql, index);
    await dropReplaced(sql, index);
  }
}

/**
 * `withoutStatistics`: each column's target 0, on the index and (ALTER INDEX recurses) every partition's copy;
 * a catalog update each, no wait on writers. Statistics gathered before stay (still about right); a partition
 * analysed only since has none, and the planner takes its defaults for the index's expressions.
 */
async function keepWithoutStatistics(sql: postgres.Sql, index: OnlineIndex): Promise<void> {
  if (!index.withoutStatistics) return;
  const columns = await sql<{ attnum: number }[]>`
    select a.attnum from pg_attribute a join pg_class c on c.oid = a.attrelid
    where c.relname = ${index.name} and c.relnamespace = current_schema()::regnamespace and a.attnum > 0 order by a.attnum`;
  for (const { attnum } of columns) {
    await withShortLockWaits(sql, `alter index ${quoted(index.name)} alter column ${attnum} set statistics 0`);
  }
}

async function buildOnPartitions(sql: postgres.Sql, index: OnlineIndex, table: string, definition: string): Promise<void> {
  if (!index.name.startsWith(`${table}_`)) throw new Error(`online index ${index.name} on a partitioned table must be named after it (${table}_…)`);
  note(`building index ${index.name} on each partition of ${table} concurrently`);
  // Each partition's first: the parent's own index takes a SHARE lock on the table, so writers queue behind
  // it while it waits for the transactions in flight; made last, it has nothing left to build.
  for (const partition of (await partitionsOf(sql, table)) ?? []) await buildOnPartition(sql, index, table, definition, partition);
  await withShortLockWaits(sql, `create index if not exists ${quoted(index.name)} on only ${quoted(table)} ${definition}`);
  // Attached one by one (partitions made meanwhile got a copy of the parent's index when they were attached).
  for (const partition of (await partitionsOf(sql, table)) ?? []) {
    const name = await buildOnPartition(sql, index, table, definition, partition);
    if (name) await withShortLockWaits(sql, `alter index ${quoted(index.name)} attach partition ${quoted(name)}`);
  }
}

/** The partition's copy of `index`, built concurrently unless valid already; null when one is attached to the parent's. */
async function buildOnPartition(sql: postgres.Sql, index: OnlineIndex, table: string, definition: string, partition: string): Promise<string | null> {
  const [attached] = await sql`
    select 1 from pg_inherits h join pg_index i on i.indexrelid = h.inhrelid join pg_class p on p.oid = h.inhparent
    where p.relname = ${index.name} and p.relnamespace = current_schema()::regnamespace and i.indrelid = ${partition}::regclass`;
  if (attached) return null;
  const name = partition + index.name.slice(table.length);
  const existing = await indexState(sql, name);
  if (existing?.valid) return name;
  if (existing) await sql.unsafe(`drop index concurrently if exists ${quoted(name)}`);
  await sql.unsafe(`create index concurrently ${quoted(name)} on ${quoted(partition)} ${definition}`);
  return name;
}

/** `statement` waiting at most LOCK_WAIT_MS for its lock at a time, then again, until it runs. */
async function withShortLockWaits(sql: postgres.Sql, statement: string): Promise<void> {
  while ((await withLockTimeout(sql, `${LOCK_WAIT_MS}ms`, (tx) => tx.unsafe(statement))) === null) {
    await new Promise((resolve) => setTimeout(resolve, LOCK_WAIT_MS));
  }
}
const LOCK_WAIT_MS = 200;

async function indexState(sql: postgres.Sql, name: string): Promise<{ valid: boolean } | undefined> {
  const [row] = await sql<{ valid: boolean }[]>`
    select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relname = ${name} and c.relnamespace = current_schema()::regnamespace`;
  return row;
}

/** `on` is `"table" using …` or `table (…)`: the table, and what follows it. */
function splitOn(index: OnlineIndex): { table: string; definition: string } {
  const match = /^\s*(?:"([^"]+)"|([a-z_][a-z0-9_]*))\s+(.*)$/s.exec(index.on);
  if (!match) throw new Error(`online index ${index.name}: cannot tell its table in "${index.on}"`);
  return { table: (match[1] ?? match[2])!, definition: match[3]! };
}

/** The partitions of `table`, oldest bound first, or null when it is a plain table. */
async function partitionsOf(sql: postgres.Sql, table: string): Promise<string[] | null> {
  const [kind] = await sql<{ relkind: string }[]>`
    select relkind from pg_class where relname = ${table} and relnamespace = current_schema()::regnamespace`;
  if (kind?.relkind !== "p") return null;
  const rows = await sql<{ name: string }[]>`
    select c.relname as name from pg_inherits h join pg_class c on c.oid = h.inhrelid
    where h.inhparent = ${table}::regclass order by c.relname`;
  return rows.map((row) => row.name);
}

/**
 * Concurrently: a plain DROP INDEX would wait behind, and then stop, every transaction writing to the table.
 * A partitioned table's index cannot be dropped concurrently: dropped plainly, a brief lock once no
 * statement is using the table.
 */
async function dropReplaced(sql: postgres.Sql, index: OnlineIndex): Promise<void> {
  for (const replaced of index.replaces ?? []) {
    const [old] = await sql<{ relkind: string }[]>`select relkind from pg_class where relname = ${replaced} and relnamespace = current_schema()::regnamespace and relkind in ('i', 'I')`;
    if (!old) continue;
    note(`dropping index ${replaced} ${old.relkind === "I" ? "" : "concurrently "}(replaced by ${index.name})`);
    await sql.unsafe(`drop index ${old.relkind === "I" ? "" : "concurrently "}if exists ${quoted(replaced)}`);
  }
}
