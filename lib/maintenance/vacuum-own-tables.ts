// Keeps the product's own tables vacuumed and analysed where the server's autovacuum does not: a server
// run with `autovacuum = off` (this machine's CI server is), or a table with autovacuum_enabled = false.
// Without it dead tuples pile up in the tables every delivery rewrites (deliveries, destination_slots,
// graphile-worker's jobs) and a fresh database's planner has no statistics: bench:e2e saw 1,077
// sequential scans of deliveries and the parked look as the busiest statement.
//
// One pass reads pg_stat_user_tables for the tables of our schemas (public, graphile_worker) and, for
// each past autovacuum's own thresholds (the server's autovacuum_* settings, or the table's own), runs
// what autovacuum would have: VACUUM (ANALYZE) past the dead-tuple (or inserted-tuple) threshold,
// ANALYZE past the changed-since-analyze one. The reading costs one catalog query; when autovacuum is
// on and no table opts out, that is all a pass does.
//
// VACUUM cannot run in a transaction, so a pass that has work opens a connection of its own (not the
// job's pool), throttled like autovacuum (its cost delay and limit), with SKIP_LOCKED (a table someone
// else is vacuuming or locking is skipped, not waited for), a lock_timeout, a statement_timeout, and a
// session advisory lock so that two passes (two workers) never run at once. A pass starts no new table
// after its time budget; what it leaves, the next pass takes, worst table first.
import postgres from "postgres";
import { databaseUrl, getSql } from "@/db";
import { config, type Config } from "@/lib/config/config";
import { QUEUE_SCHEMA } from "@/lib/queue/queue-tables";
import { logger } from "@/lib/logging/logger";

export type OwnVacuumMode = "auto" | "off";

export interface OwnVacuumSettings {
  /** VACUUM_OWN_TABLES: "auto" (default) vacuums where autovacuum does not; "off" never (you run your own). */
  mode: OwnVacuumMode;
  /** VACUUM_OWN_TABLES_INTERVAL_SECONDS (15): how soon a pass that had tables to look after looks again. */
  intervalSeconds: number;
  /** VACUUM_OWN_TABLES_RUN_SECONDS (30): a pass starts no new table after this long. */
  runSeconds: number;
  /** VACUUM_OWN_TABLES_STATEMENT_TIMEOUT_MS (600,000): one VACUUM or ANALYZE is cut off after this long. */
  statementTimeoutMs: number;
}

export function ownVacuumSettings(settings: Config = config()): OwnVacuumSettings {
  return {
    mode: settings.VACUUM_OWN_TABLES,
    intervalSeconds: settings.VACUUM_OWN_TABLES_INTERVAL_SECONDS,
    runSeconds: settings.VACUUM_OWN_TABLES_RUN_SECONDS,
    statementTimeoutMs: settings.VACUUM_OWN_TABLES_STATEMENT_TIMEOUT_MS,
  };
}

/** The schemas whose tables are ours to look after. */
const OWN_SCHEMAS = ["public", QUEUE_SCHEMA];

interface TableHealth {
  name: string;
  deadTuples: number;
  needsVacuum: boolean;
  needsAnalyze: boolean;
  /** How far past its threshold, for doing the worst first. */
  urgency: number;
}

export interface ServerAutovacuum {
  /** The server's autovacuum setting (track_counts off counts as off: autovacuum cannot work without it). */
  on: boolean;
  costDelay: string;
  costLimit: number;
}

/**
 * Our tables autovacuum does not look after, and which of them are past its thresholds now.
 * Thresholds as autovacuum computes them (reltuples, never-analysed tables counting as empty).
 */
export async function readOwnTablesHealth(sql: postgres.Sql = getSql()): Promise<{ server: ServerAutovacuum; tables: TableHealth[]; looked: number }> {
  const [server] = await sql<{ on: boolean; cost_delay: string; cost_limit: number }[]>`
    select current_setting('autovacuum') = 'on' and current_setting('track_counts') = 'on' as on,
           current_setting('autovacuum_vacuum_cost_delay') as cost_delay,
           case when current_setting('autovacuum_vacuum_cost_limit')::int > 0
                then current_setting('autovacuum_vacuum_cost_limit')::int
                else current_setting('vacuum_cost_limit')::int end as cost_limit`;
  const rows = await sql<{ name: string; dead: number; mods: number; inserted: number; vacuum_at: number; insert_vacuum_at: number | null; analyze_at: number }[]>`
    with settings as (
      select current_setting('autovacuum_vacuum_threshold')::float8 as vacuum_threshold,
             current_setting('autovacuum_vacuum_scale_factor')::float8 as vacuum_scale,
             current_setting('autovacuum_vacuum_insert_threshold')::float8 as insert_threshold,
             current_setting('autovacuum_vacuum_insert_scale_factor')::float8 as insert_scale,
             current_setting('autovacuum_analyze_threshold')::float8 as analyze_threshold,
             current_setting('autovacuum_analyze_scale_factor')::float8 as analyze_scale
    )
    select format('%I.%I', t.schemaname, t.relname) as name,
           t.n_dead_tup::float8 as dead, t.n_mod_since_analyze::float8 as mods, t.n_ins_since_vacuum::float8 as inserted,
           coalesce(o.vacuum_threshold, s.vacuum_threshold) + coalesce(o.vacuum_scale, s.vacuum_scale) * greatest(c.reltuples, 0) as vacuum_at,
           case when coalesce(o.insert_threshold, s.insert_threshold) >= 0
                then coalesce(o.insert_threshold, s.insert_threshold) + coalesce(o.insert_scale, s.insert_scale) * greatest(c.reltuples, 0) end as insert_vacuum_at,
           coalesce(o.analyze_threshold, s.analyze_threshold) + coalesce(o.analyze_scale, s.analyze_scale) * greatest(c.reltuples, 0) as analyze_at
    from pg_stat_user_tables t
    join pg_class c on c.oid = t.relid
    cross join settings s
    cross join lateral (
      select bool_and(option_value::bool) filter (where option_name = 'autovacuum_enabled') as enabled,
             max(option_value::float8) filter (where option_name = 'autovacuum_vacuum_threshold') as vacuum_threshold,
             max(option_value::float8) filter (where option_name = 'autovacuum_vacuum_scale_factor') as vacuum_scale,
             max(option_value::float8) filter (where option_name = 'autovacuum_vacuum_insert_threshold') as insert_threshold,
             max(option_value::float8) filter (where option_name = 'autovacuum_vacuum_insert_scale_factor') as insert_scale,
             max(option_value::float8) filter (where option_name = 'autovacuum_analyze_threshold') as analyze_threshold,
             max(option_value::float8) filter (where option_name = 'autovacuum_analyze_scale_factor') as analyze_scale
      from pg_options_to_table(c.reloptions)
    ) o
    where t.schemaname = any(${OWN_SCHEMAS}::text[])
      and c.relkind = 'r'
      and pg_has_role(c.relowner, 'USAGE') -- VACUUM is the owner's (a table we do not own would only warn)
      and (not ${server!.on} or o.enabled = false)
      and not exists (select 1 from pg_stat_progress_vacuum p where p.relid = t.relid and p.datid = (select oid from pg_database where datname = current_database()))`;
  const tables: TableHealth[] = [];
  for (const row of rows) {
    const deadPast = row.dead / row.vacuum_at;
    const insertedPast = row.insert_vacuum_at === null ? 0 : row.inserted / row.insert_vacuum_at;
    const changedPast = row.mods / row.analyze_at;
    const needsVacuum = deadPast > 1 || insertedPast > 1;
    const needsAnalyze = changedPast > 1;
    if (needsVacuum || needsAnalyze) {
      tables.push({ name: row.name, deadTuples: row.dead, needsVacuum, needsAnalyze, urgency: Math.max(deadPast, insertedPast, changedPast) });
    }
  }
  tables.sort((a, b) => b.urgency - a.urgency);
  return { server: { on: server!.on, costDelay: server!.cost_delay, costLimit: server!.cost_limit }, tables, looked: rows.length };
}

export interface TableMaintained {
  table: string;
  action: "vacuum" | "analyze";
  deadTuples: number;
  ms: number;
  /** Someone else held the table (SKIP_LOCKED): nothing was done. */
  skipped: boolean;
}

export interface OwnVacuumPass {
  /** Tables autovacuum does not look after (0: it looks after all of ours, or VACUUM_OWN_TABLES=off). */
  looked: number;
  maintained: TableMaintained[];
  /** Another pass held the lock: this one did nothing. */
  busy: boolean;
  /** Tables left for the next pass (time budget spent). */
  left: number;
}

/** Two passes at once (two workers, or a pass overrunning into the next) would only queue behind each other. */
const PASS_LOCK = "webhook-inbox:vacuum-own-tables";

/** One pass: reads the health of our tables, vacuums or analyses the ones past their thresholds. */
export async function vacuumOwnTables(
  options: { settings?: OwnVacuumSettings; signal?: AbortSignal; log?: (line: string) => void } = {},
): Promise<OwnVacuumPass> {
  const settings = options.settings ?? ownVacuumSettings();
  const log = options.log ?? ((line: string) => logger.info(`[vacuum-own-tables] ${line}`));
  if (settings.mode === "off") return { looked: 0, maintained: [], busy: false, left: 0 };
  const { server, tables, looked } = await readOwnTablesHealth();
  if (tables.length === 0) return { looked, maintained: [], busy: false, left: 0 };

  const started = performance.now();
  const notices: string[] = [];
  // Its own connection, out of every pool: VACUUM refuses to run inside a transaction block.
  const connection = postgres(databaseUrl(), {
    max: 1,
    connect_timeout: 5,
    onnotice: (notice) => notices.push(String(notice.message)),
    connection: {
      application_name: "webhook-inbox vacuum-own-tables",
      statement_timeout: settings.statementTimeoutMs,
      lock_timeout: 1_000,
      // Paced as autovacuum would pace it, so it does not take the disk from ingest.
      vacuum_cost_delay: server.costDelay,
      vacuum_cost_limit: server.costLimit,
    } as Record<string, string | number>,
  });
  const maintained: TableMaintained[] = [];
  let done = 0;
  try {
    const [{ locked }] = await connection<{ locked: boolean }[]>`select pg_try_advisory_lock(hashtext(${PASS_LOCK})) as locked`;
    if (!locked) return { looked, maintained, busy: true, left: tables.length };
    for (const table of tables) {
      if (options.signal?.aborted || performance.now() - started > settings.runSeconds * 1_000) break;
      const action = table.needsVacuum ? "vacuum" : "analyze";
      notices.length = 0;
      const began = performance.now();
      // The name comes from format('%I.%I') above: quoted by the server.
      const statement = connection.unsafe(action === "vacuum" ? `vacuum (analyze, skip_locked) ${table.name}` : `analyze (skip_locked) ${table.name}`);
      // A worker shutting down cancels the VACUUM; a later pass starts it again.
      const cancel = () => void statement.cancel();
      options.signal?.addEventListener("abort", cancel, { once: true });
      try {
        await statement;
      } catch (error) {
        // Cancelled for a shutdown: not a failure of the job (VACUUM keeps nothing half done).
        if (!options.signal?.aborted) throw error;
        log(`${table.name}: ${action} stopped, the worker is shutting down; a later pass does it`);
        break;
      } finally {
        options.signal?.removeEventListener("abort", cancel);
      }
      const ms = Math.round(performance.now() - began);
      const skipped = notices.some((notice) => notice.startsWith("skipping"));
      maintained.push({ table: table.name, action, deadTuples: table.deadTuples, ms, skipped });
      done++;
      log(
        skipped
          ? `${table.name}: skipped, someone else holds it`
          : `${action === "vacuum" ? "vacuumed and analysed" : "analysed"} ${table.name}: ${table.deadTuples} dead tuples, ${ms} ms`,
      );
    }
    return { looked, maintained, busy: false, left: tables.length - done };
  } finally {
    // Ending the session releases the advisory lock.
    await connection.end({ timeout: 5 }).catch(() => {});
  }
}

/** Whether the worker must look after its own tables, for its start-up line. */
export async function describeOwnVacuum(settings = ownVacuumSettings(), sql: postgres.Sql = getSql()): Promise<string | null> {
  if (settings.mode === "off") return null;
  const { server, looked } = await readOwnTablesHealth(sql);
  if (!server.on) {
    return `autovacuum is off on this PostgreSQL server: the worker vacuums and analyses its own ${looked} tables (every ${settings.intervalSeconds} s, past autovacuum's thresholds; VACUUM_OWN_TABLES=off to leave it to you)`;
  }
  return looked > 0 ? `autovacuum is disabled for ${looked} of our tables: the worker vacuums and analyses them itself` : null;
}
