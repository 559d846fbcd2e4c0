// graphile-worker's own tables (graphile_worker._private_*), which its public functions do not
// cover: removing waiting jobs, asking whether a delivery still has a job that can run, finding
// and releasing the locks of dead worker pools; and the settings of its schema that migrations
// make. They are graphile-worker's private layout, so they are read and written here only, against
// the version checked at start (checkQueueVersion).
import { createRequire } from "node:module";
import { sql } from "drizzle-orm";
import type postgres from "postgres";
import type { DbOrTx } from "@/db";
import { deliverJobKey } from "./job-registry";

/**
 * The graphile-worker this file's SQL was written for: its npm version and the last migration it
 * installs in the database. Another version may lay its tables out differently.
 */
export const QUEUE_VERSION = { package: "0.17.3", migration: 19 };

/** The schema graphile-worker keeps its tables and functions in. */
export const QUEUE_SCHEMA = "graphile_worker";

/**
 * add_jobs is PL/pgSQL, so each session caches its statements' plans. A plan made while the jobs table
 * was small seq-scans it (the update that clears the keys of running jobs), and stays cached while the
 * table grows: with a backlog of 40,000 jobs every add_jobs call read the whole table (3× slower for 100
 * jobs; perf showed ingest's database time going to heap visibility checks). Planning each call anew
 * uses the key index at any size. Run after graphile-worker's migrations, which may replace the function.
 */
export async function planAddJobsAfresh(sqlClient: postgres.Sql): Promise<void> {
  await sqlClient.unsafe(`alter function graphile_worker.add_jobs(graphile_worker.job_spec[], boolean) set plan_cache_mode = force_custom_plan`);
}

/**
 * Refuses to run against a graphile-worker other than QUEUE_VERSION: installed, or in the database
 * (a process of another version may have migrated it; a database it has not reached yet is brought
 * to the installed version's migration as the worker starts). Called once, before the worker runs.
 */
export async function checkQueueVersion(sqlClient: postgres.Sql): Promise<void> {
  const installed = (createRequire(import.meta.url)("graphile-worker/package.json") as { version: string }).version;
  const [{ present }] = await sqlClient<{ present: boolean }[]>`select to_regclass('graphile_worker.migrations') is not null as present`;
  const migrated = present ? (await sqlClient<{ id: number | null }[]>`select max(id)::int as id from graphile_worker.migrations`)[0]!.id : null;
  if (installed !== QUEUE_VERSION.package || (migrated !== null && migrated !== QUEUE_VERSION.migration)) {
    throw new Error(
      `graphile-worker ${installed} with database migration ${migrated ?? "none"}: lib/queue/queue-tables.ts reads its private tables ` +
        `as version ${QUEUE_VERSION.package} (migration ${QUEUE_VERSION.migration}) lays them out; check that SQL, then QUEUE_VERSION`,
    );
  }
}

/**
 * Removes the waiting jobs with these keys, in the caller's transaction. Jobs a worker has already
 * locked are left alone (they find their delivery settled and end): graphile_worker.remove_job
 * would lock their rows, and several locked rows in one transaction can deadlock with
 * graphile-worker's batched completion, which shuts a 0.17.3 worker pool down. Never waits.
 */
export async function removeJobs(db: DbOrTx, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await db.execute(sql`
    delete from graphile_worker._private_jobs where id in (
      select id from graphile_worker._private_jobs
      where key in (select json_array_elements_text(${JSON.stringify(keys)}::text::json)) and locked_at is null
      for update skip locked)`);
}

/**
 * SQL, true when the delivery `deliveryId` (an SQL expression) has a job graphile-worker would
 * still run (one with attempts left). Meant for one statement over many deliveries: the planner
 * reads the job table once, hashed by the payload's delivery id.
 */
export function hasRunnableJobSql(deliveryId: string): string {
  return `exists (
    select 1 from graphile_worker._private_jobs j
    where j.payload->>'deliveryId' = ${deliveryId} and j.attempts < j.max_attempts)`;
}

/**
 * SQL, true when the delivery `deliveryId` (an SQL expression) has a job under its own key (deliverJobKey)
 * that graphile-worker would still run: one probe of the job key's unique index per delivery (`offset 0`
 * keeps it a probe: as an anti-join the planner hashed the whole job table instead). A job added without the
 * key (the rescue sweep's) is not seen; hasRunnableJobSql sees every one.
 */
export function hasRunnableKeyedJobSql(deliveryId: string): string {
  return `exists (
    select 1 from graphile_worker._private_jobs j
    where j.key = '${deliverJobKey("")}' || ${deliveryId} and j.attempts < j.max_attempts
    offset 0)`;
}

/**
 * The worker pools holding job or queue locks taken before `cutoff` (an SQL timestamp), other than
 * `live` (an SQL set of pool ids): graphile-worker 0.17 locks in the pool's name (STACK-NOTES 14).
 */
export function poolsLockingSinceSql(cutoff: string, live: string): string {
  return `select locked_by from graphile_worker._private_jobs
    where locked_by is not null and locked_at < ${cutoff} and locked_by not in (${live})
    union
    select locked_by from graphile_worker._private_job_queues
    where locked_by is not null and locked_at < ${cutoff} and locked_by not in (${live})`;
}

/** Gives the jobs and queues these pools had locked back to the queue, in the caller's transaction. */
export async function unlockPools(tx: postgres.TransactionSql, poolIds: string[]): Promise<void> {
  await tx`select graphile_worker.force_unlock_workers(${poolIds}::text[])`;
}
