// Database clients. Created lazily from DATABASE_URL so that build steps and tests can set it first.
// Two clients on purpose: drizzle rewrites its postgres.js client's type parsers, so raw SQL
// (the ingest hot path, graphile_worker calls) gets its own instance.
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
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
const NO_JIT = { jit: "off" } as const;

/**
 * A session setting chosen by an environment variable: one of `allowed` (case aside), `fallback` when
 * unset; anything else stops the process at start with the variable named, rather than at the first query.
 */
export function sessionSettingFromEnv<T extends string>(
  name: string,
  allowed: readonly T[],
  fallback: T,
  env: Record<string, string | undefined> = process.env,
): T {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return fallback;
  if ((allowed as readonly string[]).includes(raw)) return raw as T;
  throw new Error(`${name} must be one of ${allowed.join(", ")} (got "${env[name]}")`);
}

const PLAN_CACHE_MODES = ["force_generic_plan", "auto", "force_custom_plan"] as const;
export type PlanCacheMode = (typeof PLAN_CACHE_MODES)[number];

/**
 * `plan_cache_mode` of the hot path's sessions: ingest's pool and every pool of the worker process
 * (HOT_PATH_PLAN_CACHE_MODE, default force_generic_plan). Their statements are prepared, fixed in
 * shape and indexed whatever the values, yet PostgreSQL's `auto` kept planning them again on every
 * run (a generic plan's estimate over a json parameter looks dearer than the custom ones): planning
 * was ~1/7 of the database's CPU per webhook, and generic plans took ~12 % off it (bench:e2e, README).
 * The dashboard/API pool keeps `auto`: its filters and searches want plans made for their values.
 */
export function hotPathPlanCacheMode(env: Record<string, string | undefined> = process.env): PlanCacheMode {
  return sessionSettingFromEnv("HOT_PATH_PLAN_CACHE_MODE", PLAN_CACHE_MODES, "force_generic_plan", env);
}

// Kept on globalThis so Next.js dev reloads do not open a new pool per edit.
const holder = globalThis as unknown as { __inboxClients?: Clients };

const sessionHolder = globalThis as unknown as { __inboxSessionSettings?: Readonly<Record<string, string>> };

/**
 * Settings every session of this process's pools starts with, beyond the defaults: the worker process
 * sets `synchronous_commit` here (lib/runtime/worker-sessions.ts); the web process sets nothing. Call
 * before the first query: a pool already open would keep its sessions as they are.
 */
export function setProcessSessionSettings(settings: Record<string, string>): void {
  if (holder.__inboxClients || ingestHolder.__inboxIngestSql || authHolder.__inboxAuthSql) {
    throw new Error("setProcessSessionSettings must be called before the first query");
  }
  sessionHolder.__inboxSessionSettings = { ...settings };
}

function sessionSettings(): Readonly<Record<string, string>> {
  return sessionHolder.__inboxSessionSettings ?? {};
}

export function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set (npm start sets it; see README).");
  return url;
}

/**
 * DATABASE_STATEMENT_TIMEOUT_MS (default 15,000; 0 turns it off): the server cuts off any statement of
 * the dashboard/API pool that runs longer, so a few heavy searches cannot hold every connection; the
 * request gets 503 (lib/errors.ts asServiceUnavailable). The worker process runs without it
 * (jobs/worker.ts): its statements are bounded batches, but a roll-up after a long outage may not be.
 */
export function statementTimeoutMs(): number {
  const raw = process.env.DATABASE_STATEMENT_TIMEOUT_MS;
  const parsed = Number(raw);
  return raw !== undefined && raw !== "" && Number.isInteger(parsed) && parsed >= 0 ? parsed : 15_000;
}

function clients(): Clients {
  const url = databaseUrl();
  if (holder.__inboxClients?.url === url) return holder.__inboxClients;
  const max = Number(process.env.DATABASE_POOL_SIZE ?? 10);
  const timeout = statementTimeoutMs();
  const connection = timeout > 0 ? { ...NO_JIT, ...sessionSettings(), statement_timeout: timeout } : { ...NO_JIT, ...sessionSettings() };
  const options = { max, onnotice: () => {}, connect_timeout: 5, idle_timeout: 60, connection } as const;
  const dbClient = postgres(url, options);
  const created: Clients = { url, dbClient, db: createDb(dbClient), sql: postgres(url, options) };
  holder.__inboxClients = created;
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

const ingestHolder = globalThis as unknown as { __inboxIngestSql?: { url: string; sql: postgres.Sql } };

/**
 * The ingest path's own small pool: every statement on it is cut off by the server after
 * `statementTimeoutMs`, so a request answered 503 cannot commit later (lib/ingest/group-commit.ts).
 */
export function getIngestSql(options: { max: number; statementTimeoutMs: number }): postgres.Sql {
  const url = databaseUrl();
  if (ingestHolder.__inboxIngestSql?.url !== url) {
    const sql = postgres(url, {
      max: options.max,
      onnotice: () => {},
      connect_timeout: 1,
      connection: { ...NO_JIT, plan_cache_mode: hotPathPlanCacheMode(), ...sessionSettings(), statement_timeout: options.statementTimeoutMs },
    });
    ingestHolder.__inboxIngestSql = { url, sql };
  }
  return ingestHolder.__inboxIngestSql.sql;
}

const authHolder = globalThis as unknown as { __inboxAuthSql?: { url: string; sql: postgres.Sql } };

/**
 * Sign-in's own small pool (throttle counters, the user lookup): a storm of sign-ins queues there, not
 * in front of the shared pool's queries (the ingest endpoint cache's refresh, the dashboard).
 */
export function getAuthSql(): postgres.Sql {
  const url = databaseUrl();
  if (authHolder.__inboxAuthSql?.url !== url) {
    const max = Number(process.env.AUTH_DATABASE_POOL_SIZE ?? 3);
    authHolder.__inboxAuthSql = { url, sql: postgres(url, { max, onnotice: () => {}, connect_timeout: 5, idle_timeout: 60, connection: { ...NO_JIT, ...sessionSettings() } }) };
  }
  return authHolder.__inboxAuthSql.sql;
}

/** Closes the pools (worker shutdown, tests). */
export async function closeDb(): Promise<void> {
  const current = holder.__inboxClients;
  const ingest = ingestHolder.__inboxIngestSql;
  const authSql = authHolder.__inboxAuthSql;
  holder.__inboxClients = undefined;
  ingestHolder.__inboxIngestSql = undefined;
  authHolder.__inboxAuthSql = undefined;
  await ingest?.sql.end({ timeout: 5 });
  await authSql?.sql.end({ timeout: 5 });
  if (current) await Promise.all([current.dbClient.end({ timeout: 5 }), current.sql.end({ timeout: 5 })]);
}

export { schema };
