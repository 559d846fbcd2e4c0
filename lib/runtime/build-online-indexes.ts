// Applies db/online-indexes.ts: each index built with CREATE INDEX CONCURRENTLY unless a valid one of
// that name exists. Runs under the migration lock (lib/runtime/migrate.ts), so no other migrator is
// building the same index: an invalid one found here is what an interrupted build left behind.
import type postgres from "postgres";
import type { OnlineIndex } from "@/db/online-indexes";

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;
/** Progress goes to stderr: the CLI migrates too, and its stdout is its JSON answer (API.md). */
const note = (message: string) => console.error(`[migrate] ${message}`);

/** `sql` must not be inside a transaction (CONCURRENTLY refuses to run in one). */
export async function buildOnlineIndexes(sql: postgres.Sql, indexes: readonly OnlineIndex[]): Promise<void> {
  for (const index of indexes) {
    const [existing] = await sql<{ valid: boolean }[]>`
      select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
      where c.relname = ${index.name} and c.relnamespace = current_schema()::regnamespace`;
    if (existing?.valid) {
      await dropReplaced(sql, index);
      continue;
    }
    if (existing) {
      // Left INVALID by a build that was cancelled or whose process died: writers keep maintaining it, readers never use it.
      note(`index ${index.name} was left invalid by an interrupted build; building it again`);
      await sql.unsafe(`drop index concurrently if exists ${quoted(index.name)}`);
    }
    note(`building index ${index.name} concurrently`);
    await sql.unsafe(`create index concurrently ${quoted(index.name)} on ${index.on}`);
    await dropReplaced(sql, index);
  }
}

/** Concurrently: a plain DROP INDEX would wait behind, and then stop, every transaction writing to the table. */
async function dropReplaced(sql: postgres.Sql, index: OnlineIndex): Promise<void> {
  for (const replaced of index.replaces ?? []) {
    const [old] = await sql`select 1 from pg_class where relname = ${replaced} and relnamespace = current_schema()::regnamespace and relkind = 'i'`;
    if (!old) continue;
    note(`dropping index ${replaced} concurrently (replaced by ${index.name})`);
    await sql.unsafe(`drop index concurrently if exists ${quoted(replaced)}`);
  }
}
