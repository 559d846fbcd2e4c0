// Database clients. Created lazily from DATABASE_URL so that build steps and tests can set it first.
// Two clients on purpose: drizzle rewrites its postgres.js client's type parsers, so raw SQL
// (the ingest hot path, graphile_worker calls) gets its own instance.
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { config } from "@/lib/config/config";
import { processSingleton } from "@/lib/runtime/process-singleton";
import * as schema from "./schema";

export function createDb(client: postgres.Sql) {
  return drizzle({ client, schema, casing: "snake_case" });
}

export type Db = ReturnType<typeof createDb>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type DbOrTx = Db | Tx;

interface Clients {
  url: string;
  db: Db;
  dbClient: postgres.Sql;
  sql: postgres.Sql;
}

/**
 * Every query here is a short indexed one, but a prepared statement's generic plan can be estimated
 * above jit_above_cost (a few CTEs over a json parameter are enough), and PostgreSQL then compiles it
 * on every run: measured 60–100 ms of CPU per call of the worker's after-commit look, ~7× the
 * database's whole cost per delivery.
 */
export const NO_JIT = { jit: "off" } as const;

export type PlanCacheMode = ReturnType<typeof hotPathPlanCacheMode>;

/**
 * `plan_cache_mode` of the hot path's sessions: ingest's pool and every pool of the worker process
 * (HOT_PATH_PLAN_CACHE_MODE, default force_generic_plan). Their statements are prepared, fixed in
 * shape and indexed whatever the values, yet PostgreSQL's `auto` kept planning them again on every
 * run (a generic plan's estimate over a json parameter looks dearer than the custom ones): planning
 * was ~1/7 of the database's CPU per webhook, and generic plans took ~12 % off it (bench:e2e, docs/performance.md).
 * The dashboard/API pool keeps `auto`: its filters and searches want plans made for their values.
 */
export function hotPathPlanCacheMode() {
  return config().HOT_PATH_PLAN_CACHE_MODE;
}

interface Pools {
  clients?: Clients;
  ingest?: { url: string; sql: postgres.Sql };
  auth?: { url: string; sql: postgres.Sql };
  sessionSettings?: Readonly<Record<string, string>>;
  statementTimeoutMs?: number;
}

// One set per process: Next.js bundles (and dev reloads) must not each open their own pools.
const pools = processSingleton("database pools", (): Pools => ({}));

const assertNoPoolYet = (what: string) => {
  if (pools.clients || pools.ingest || pools.auth) throw new Error(`${what} must be called before the first query`);
};

/**
 * Settings every session of this process's pools starts with, beyond the defaults: the worker process
 * sets `synchronous_commit` here (lib/runtime/worker-sessions.ts); the web process sets nothing. Call
 * before the first query: a pool already open would keep its sessions as they are.
 */
export function setProcessSessionSettings(settings: Record<string, string>): void {
  assertNoPoolYet("setProcessSessionSettings");
  pools.sessionSettings = { ...settings };
}

function sessionSettings(): Readonly<Record<string, string>> {
  return pools.sessionSettings ?? {};
}

/**
 * The worker process runs its dashboard/API pool under WORKER_STATEMENT_TIMEOUT_MS rather than
 * DATABASE_STATEMENT_TIMEOUT_MS (jobs/worker.ts). Call before the first query.
 */
export function setProcessStatementTimeoutMs(ms: number): void {
  assertNoPoolYet("setProcessStatementTimeoutMs");
  pools.statementTimeoutMs = ms;
}

export function databaseUrl(): string {
  const url = config().DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set (npm start sets it; see README).");
  return url;
}

/**
 * DATABASE_STATEMENT_TIMEOUT_MS (default 15,000; 0 turns it off): the server cuts off any statement of
 * the dashboard/API pool that runs longer, so a few heavy searches cannot hold every connection; the
 * request gets 503 (lib/errors.ts asServiceUnavailable). The worker process runs without it by default
 * (WORKER_STATEMENT_TIMEOUT_MS): its statements are bounded batches, but a roll-up after a long outage may not be.
 */
export function statementTimeoutMs(): number {
  return pools.statementTimeoutMs ?? config().DATABASE_STATEMENT_TIMEOUT_MS;
}

function clients(): Clients {
  const url = databaseUrl();
  if (pools.clients?.url === url) return pools.clients;
  const max = config().DATABASE_POOL_SIZE;
  const timeout = statementTimeoutMs();
  const connection = timeout > 0 ? { ...NO_JIT, ...sessionSettings(), statement_timeout: timeout } : { ...NO_JIT, ...sessionSettings() };
  const options = { max, onnotice: () => {}, connect_timeout: 5, idle_timeout: 60, connection } as const;
  const dbClient = postgres(url, options);
  const created: Clients = { url, dbClient, db: createDb(dbClient), sql: postgres(url, options) };
  pools.clients = created;
  return created;
}

/** The drizzle database for domain verbs. */
export function getDb(): Db {
  return clients().db;
}

/** A raw postgres.js client with default type parsing, for hand-written SQL. */
export function getSql(): postgres.Sql {
  return clients().sql;
}

/**
 * The ingest path's own small pool: every statement on it is cut off by the server after
 * `statementTimeoutMs`, so a request answered 503 cannot commit later (lib/ingest/group-commit.ts).
 */
export function getIngestSql(options: { max: number; statementTimeoutMs: number }): postgres.Sql {
  const url = databaseUrl();
  if (pools.ingest?.url !== url) {
    const sql = postgres(url, {
      max: options.max,
      onnotice: () => {},
      connect_timeout: 1,
      connection: { ...NO_JIT, plan_cache_mode: hotPathPlanCacheMode(), ...sessionSettings(), statement_timeout: options.statementTimeoutMs },
    });
    pools.ingest = { url, sql };
  }
  return pools.ingest.sql;
}

/**
 * Sign-in's own small pool (throttle counters, the user lookup): a storm of sign-ins queues there, not
 * in front of the shared pool's queries (the ingest endpoint cache's refresh, the dashboard).
 */
export function getAuthSql(): postgres.Sql {
  const url = databaseUrl();
  if (pools.auth?.url !== url) {
    const max = config().AUTH_DATABASE_POOL_SIZE;
    pools.auth = { url, sql: postgres(url, { max, onnotice: () => {}, connect_timeout: 5, idle_timeout: 60, connection: { ...NO_JIT, ...sessionSettings() } }) };
  }
  return pools.auth.sql;
}

/** Closes the pools (worker shutdown, tests). */
export async function closeDb(): Promise<void> {
  const { clients: current, ingest, auth: authSql } = pools;
  pools.clients = pools.ingest = pools.auth = undefined;
  await ingest?.sql.end({ timeout: 5 });
  await authSql?.sql.end({ timeout: 5 });
  if (current) await Promise.all([current.dbClient.end({ timeout: 5 }), current.sql.end({ timeout: 5 })]);
}

export { schema };
