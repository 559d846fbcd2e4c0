// The safety net behind the worker's own bookkeeping, run every minute (jobs/rescue-deliveries.ts):
// a claim whose lease ran out long ago has lost its job (it failed for good, or was deleted), and
// parked deliveries of an endpoint with free slots have lost their wake-up (say, the process died
// between an unpause and its wake-up). Both get a job again. Normally it finds nothing.
import type postgres from "postgres";
import { getSql } from "@/db";
import { deliverJobSpec, enqueueRaw } from "@/jobs/enqueue";
import { lockEndpointSlots, rawRunner, wakeParkedDeliveries } from "./endpoint-slots";
import { logDelivery } from "./log-delivery";
import { deliverySettings } from "./settings";

/** A lapsed claim is left this long to its own job's re-run (after a dead worker's jobs are released). */
const LAPSED_GRACE_SECONDS = 60;

export async function rescueDeliveries({ sql = getSql() }: { sql?: postgres.Sql } = {}): Promise<{ lapsed: number; woken: number }> {
  const { endpointConcurrency } = deliverySettings();
  const lapsed = await sql.begin(async (tx) => {
    const rows = await tx<{ id: string; endpoint_id: string }[]>`
      with lost as (
        select id, organization_id, attempt_count, updated_at from deliveries
        where status = 'delivering' and lease_expires_at < now() - make_interval(secs => ${LAPSED_GRACE_SECONDS})
        for update skip locked
      ),
      interrupted as (
        insert into attempts (organization_id, delivery_id, number, trigger, started_at, error)
        select organization_id, id, attempt_count, 'auto', updated_at, 'interrupted: the attempt was lost (its job ended without an outcome)'
        from lost
      )
      update deliveries d set status = 'pending', claimed_by_job = null, lease_expires_at = null, updated_at = now()
      from lost where d.id = lost.id
      returning d.id, d.endpoint_id`;
    await enqueueRaw(tx, rows.map((row) => deliverJobSpec({ deliveryId: row.id, endpointId: row.endpoint_id, trigger: "auto", unkeyed: true })));
    return rows;
  });
  for (const row of lapsed) logDelivery(row.id, "its claim lapsed without an outcome; attempting again", "problem");

  let woken = 0;
  const parked = await sql<{ endpoint_id: string }[]>`select distinct endpoint_id from deliveries where parked_at is not null`;
  for (const { endpoint_id: endpointId } of parked) {
    const ids = await sql.begin(async (tx) => {
      const run = rawRunner(tx);
      await lockEndpointSlots(run, endpointId);
      return wakeParkedDeliveries(run, { endpointId, concurrency: endpointConcurrency });
    });
    for (const id of ids) logDelivery(id, "woken by the rescue sweep");
    woken += ids.length;
  }
  return { lapsed: lapsed.length, woken };
}
