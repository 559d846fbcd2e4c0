// An endpoint's attempt slots (its concurrency cap), shared by every worker process through the
// database. Claims, finishes and wake-ups of one endpoint serialise on a transaction-scoped
// advisory lock, so a delivery parked because the endpoint was full is always seen by the attempt
// that frees a slot: no wake-up is lost, and no job spins waiting for a slot.
//
// The statements are written once, as drizzle `sql`, and run either in a drizzle transaction
// (tenant verbs: resume) or on a raw postgres.js transaction (the worker's hot path).
import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type postgres from "postgres";
import type { DbOrTx } from "@/db";
import { deliverJobSpec, type JobSpec } from "@/jobs/enqueue";

export type Runner = (query: SQL) => Promise<readonly Record<string, unknown>[]>;

const dialect = new PgDialect();

export function rawRunner(tx: postgres.TransactionSql): Runner {
  return (query) => {
    const compiled = dialect.sqlToQuery(query);
    return tx.unsafe(compiled.sql, compiled.params as postgres.ParameterOrJSON<never>[]);
  };
}

export function drizzleRunner(db: DbOrTx): Runner {
  return async (query) => (await db.execute(query)) as unknown as Record<string, unknown>[];
}

/** Takes the endpoint's slot lock until the transaction ends. */
export async function lockEndpointSlots(run: Runner, endpointId: string): Promise<void> {
  await run(sql`select pg_advisory_xact_lock(hashtext('webhook-inbox:endpoint-slots'), hashtext(${endpointId}))`);
}

/**
 * Unparks the endpoint's oldest parked deliveries, as many as it has free slots (none while it is
 * paused), and returns their job specs for the caller to enqueue in the same transaction. Call
 * with the slot lock held; `except` is a delivery the caller is finishing (its slot is free).
 */
export async function wakeParkedDeliveries(
  run: Runner,
  input: { endpointId: string; concurrency: number; except?: string | null },
): Promise<JobSpec[]> {
  const except = input.except ?? "";
  const rows = (await run(sql`
    with free as (
      select greatest(0, ${input.concurrency}::int - count(*))::int as n from deliveries
      where endpoint_id = ${input.endpointId} and status = 'delivering' and lease_expires_at > now() and id <> ${except}
    ),
    pick as (
      select d.id from deliveries d
      where d.endpoint_id = ${input.endpointId} and d.parked_at is not null and d.status = 'pending' and d.id <> ${except}
        and not exists (select 1 from endpoints e where e.id = ${input.endpointId} and e.paused)
      order by d.received_at, d.id
      limit (select n from free)
      for update skip locked
    )
    update deliveries d set parked_at = null, updated_at = now()
    from pick where d.id = pick.id
    returning d.id, d.attempt_count, d.auto_attempt_count`)) as { id: string; attempt_count: number; auto_attempt_count: number }[];
  return rows.map((row) => {
    // A replayed delivery parked before its replay attempt keeps its place in the replay lane.
    const replay = row.auto_attempt_count === 0 && row.attempt_count > 0;
    return deliverJobSpec({ deliveryId: row.id, endpointId: input.endpointId, trigger: replay ? "replay" : "auto" });
  });
}
