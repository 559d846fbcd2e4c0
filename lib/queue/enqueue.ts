// The queue: every job added and every read or write of graphile-worker's own tables goes through
// lib/queue (this file writes the add_jobs calls; job-registry.ts says what each job is; queue-tables.ts
// holds the rest). Jobs are added inside the caller's transaction, so a job commits with its data or not at
// all: graphile-worker's quickAddJob has its own pool and cannot join a transaction (STACK-NOTES #4).
import { sql } from "drizzle-orm";
import type postgres from "postgres";
import type { DbOrTx } from "@/db";
import { deliverJobKey, jobSpec, PRIORITY, type JobSpec, type ParsedJobPayload } from "./job-registry";

export type DeliverTrigger = ParsedJobPayload<"deliver">["trigger"];

/**
 * The deliver job's spec (its definition: JOBS.deliver); deliverJobSpecSql below writes the same in SQL.
 * `unkeyed`: no job_key, for jobs added in bulk (wake-ups, bulk replay, rescue). add_jobs clears the
 * key of a *running* job that has the same key, which locks that job's row; several such rows locked
 * in one transaction can deadlock with graphile-worker's batched completion, and graphile-worker
 * 0.17.3 shuts its pool down when a completion fails. A second job for a delivery is harmless: the
 * claim lets only one attempt happen (lib/delivery/engine/claim-delivery.ts).
 */
export function deliverJobSpec(input: { deliveryId: string; destinationId: string; trigger: DeliverTrigger; runAt?: Date | null; unkeyed?: boolean }): JobSpec {
  const payload = { deliveryId: input.deliveryId, destinationId: input.destinationId, trigger: input.trigger };
  return jobSpec("deliver", payload, { runAt: input.runAt, keyed: !input.unkeyed });
}

/**
 * SQL that adds jobs in the statement it is part of: `specs` is a query returning one json column,
 * a JobSpec per row (deliverJobSpecSql writes one). add_jobs NOTIFYs, which serialises commits
 * (STACK-NOTES 5): one call per statement.
 */
export function addJobsSql(specs: string): string {
  return `graphile_worker.add_jobs(array(
    select json_populate_record(null::graphile_worker.job_spec, specs.spec) from (${specs}) as specs(spec)))`;
}

/**
 * deliverJobSpec in SQL, as json, from SQL expressions: for statements that choose their deliveries
 * themselves. `runAt`: a timestamp of the database's clock (default: at once); `keyed`: with
 * deliverJobKey (see `unkeyed` above).
 */
export function deliverJobSpecSql(input: { deliveryId: string; destinationId: string; trigger: string; runAt?: string; keyed: boolean }): string {
  const spec = deliverJobSpec({ deliveryId: "", destinationId: "", trigger: "auto" });
  return `json_build_object(
    'identifier', '${spec.identifier}',
    'payload', json_build_object('deliveryId', ${input.deliveryId}, 'destinationId', ${input.destinationId}, 'trigger', ${input.trigger}),
    'job_key', ${input.keyed ? `'${deliverJobKey("")}' || ${input.deliveryId}` : "null"},
    'run_at', ${input.runAt ?? "null"},
    'priority', case when ${input.trigger} = 'replay' then ${PRIORITY.replay} else ${PRIORITY.fresh} end,
    'max_attempts', ${spec.max_attempts})`;
}

/** Enqueues jobs in a drizzle transaction (or on the db, for a single statement). */
export async function enqueue(db: DbOrTx, specs: JobSpec[]): Promise<void> {
  if (specs.length === 0) return;
  await db.execute(sql`select graphile_worker.add_jobs(array(
    select json_populate_record(null::graphile_worker.job_spec, spec) from json_array_elements(${JSON.stringify(specs)}::json) spec))`);
}

/** Enqueues jobs on a raw postgres.js connection or transaction (the rescue sweep, the worker's own passes). */
export async function enqueueRaw(sqlClient: postgres.Sql | postgres.TransactionSql, specs: JobSpec[]): Promise<void> {
  if (specs.length === 0) return;
  await sqlClient.unsafe(ADD_JOBS, [JSON.stringify(specs)]);
}

const ADD_JOBS = `select ${addJobsSql("select json_array_elements($1::text::json)")}`;
