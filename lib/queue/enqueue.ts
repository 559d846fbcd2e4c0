// Enqueue inside the caller's transaction, so a job commits with its data or not at all.
// graphile-worker's quickAddJob has its own pool and cannot join a transaction (STACK-NOTES #4).
import { sql } from "drizzle-orm";
import type postgres from "postgres";
import type { DbOrTx } from "@/db";

/** graphile_worker.job_spec, as JSON. */
export interface JobSpec {
  identifier: string;
  payload: Record<string, unknown>;
  queue_name?: string | null;
  run_at?: string | null;
  max_attempts?: number | null;
  job_key?: string | null;
  priority?: number | null;
}

export type DeliverTrigger = "auto" | "replay";
export interface DeliverPayload {
  deliveryId: string;
  /** Lets the task take the endpoint's slot lock without a lookup; jobs enqueued before it was added lack it. */
  endpointId?: string;
  trigger: DeliverTrigger;
}

/** Fresh deliveries run before replays, so a bulk replay never delays new traffic. */
export const PRIORITY = { fresh: 0, replay: 10 } as const;

/** The job_key of a delivery's pending attempt: at most one pending job per delivery. */
export function deliverJobKey(deliveryId: string): string {
  return `deliver:${deliveryId}`;
}

/**
 * `unkeyed`: no job_key, for jobs added in bulk (wake-ups, bulk replay, rescue). add_jobs clears the
 * key of a *running* job that has the same key, which locks that job's row; several such rows locked
 * in one transaction can deadlock with graphile-worker's batched completion, and graphile-worker
 * 0.17.3 shuts its pool down when a completion fails. A second job for a delivery is harmless: the
 * claim lets only one attempt happen (lib/delivery/engine/claim-delivery.ts).
 */
export function deliverJobSpec(input: { deliveryId: string; endpointId: string; trigger: DeliverTrigger; runAt?: Date | null; unkeyed?: boolean }): JobSpec {
  return {
    identifier: "deliver",
    payload: { deliveryId: input.deliveryId, endpointId: input.endpointId, trigger: input.trigger } satisfies DeliverPayload,
    // One pending job per delivery: a replay replaces a scheduled retry instead of running beside it.
    job_key: input.unkeyed ? null : deliverJobKey(input.deliveryId),
    run_at: input.runAt ? input.runAt.toISOString() : null,
    priority: input.trigger === "replay" ? PRIORITY.replay : PRIORITY.fresh,
    // Our task schedules its own retries; graphile-worker's only cover unexpected failures (database down).
    max_attempts: 10,
  };
}

const ADD_JOBS = `select graphile_worker.add_jobs(array(
  select json_populate_record(null::graphile_worker.job_spec, spec) from json_array_elements($1::text::json) spec))`;

/** Enqueues jobs in a drizzle transaction (or on the db, for a single statement). */
export async function enqueue(db: DbOrTx, specs: JobSpec[]): Promise<void> {
  if (specs.length === 0) return;
  await db.execute(sql`select graphile_worker.add_jobs(array(
    select json_populate_record(null::graphile_worker.job_spec, spec) from json_array_elements(${JSON.stringify(specs)}::json) spec))`);
}

/** Enqueues jobs on a raw postgres.js connection or transaction (the ingest hot path). */
export async function enqueueRaw(sqlClient: postgres.Sql | postgres.TransactionSql, specs: JobSpec[]): Promise<void> {
  if (specs.length === 0) return;
  await sqlClient.unsafe(ADD_JOBS, [JSON.stringify(specs)]);
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
