// The background half of deleting a destination (lib/destinations/delete-destination.ts hides and pauses it at
// once; this lives here, with the other verbs that move deliveries, as lib/delivery imports lib/destinations): its
// waiting deliveries are buried a bounded page per transaction, one transaction per run, and once none of its
// deliveries is open its row goes (its destination_slots with it, by cascade). Its settled deliveries stay listed.
import { inArray, sql, type SQL } from "drizzle-orm";
import { deliveries } from "@/db/schema";
import { withTransaction, type Ctx } from "@/lib/context";
import { deliverJobKey } from "@/lib/queue/job-registry";
import { removeJobs } from "@/lib/queue/queue-tables";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import { BURIED_PREFIX, BURY } from "./sql/bury";

/** Waiting deliveries buried per transaction: each commits its rows and its job removals together. */
export const END_DESTINATION_BATCH_SIZE = 500;
/**
 * How long a deleted destination's row outlives its deletion: a web process that still had the endpoint's
 * destinations cached (5 s) may store deliveries for it meanwhile, parked (it is paused); they are buried
 * before the row goes, and none can arrive after.
 */
export const DELETED_DESTINATION_GRACE_SECONDS = 60;
/** How soon to look again while an attempt at one of its deliveries is in flight. */
const IN_FLIGHT_RECHECK_MS = 5_000;

const BURIED_WHY = `${BURIED_PREFIX}: its destination was deleted`;

export type EndDestinationOutcome =
  /** A page was buried (`buried` of it), or one went pending meanwhile: run again at once. */
  | { state: "more"; buried: number }
  /** Nothing waits, but an attempt is in flight or the grace is not over: run again at `runAt`. */
  | { state: "later"; runAt: Date }
  /** Nothing open was left: its row is gone. */
  | { state: "removed" }
  /** No deleted destination of that id in ctx's organization (removed already, or never deleted): nothing done. */
  | { state: "gone" };

/**
 * One bounded step of ending deleted destination `destinationId`'s deliveries: buries a page of its pending
 * ones (their waiting jobs removed, their last error saying why), or, when none waits, removes its row if
 * nothing of it is in flight and the grace is over. Only ever touches a destination whose deletion committed.
 */
export async function endDestinationDeliveries({ ctx, input }: { ctx: Ctx; input: { destinationId: string } }): Promise<EndDestinationOutcome> {
  return withTransaction(ctx, async (tx) => {
    const [destination] = await tx.db.execute<{ endpoint_id: string; grace_left_ms: number }>(sql`
      select endpoint_id,
        greatest(0, extract(epoch from deleted_at + make_interval(secs => ${DELETED_DESTINATION_GRACE_SECONDS}) - now()) * 1000)::float8 as grace_left_ms
      from destinations where id = ${input.destinationId} and organization_id = ${ctx.organizationId} and deleted_at is not null`);
    if (!destination) return { state: "gone" };
    const floor = await deliveryIdFloor(tx.db, ctx.organizationId);
    // Its deliveries in a state the statuses name, literally: under the worker's generic plans
    // (HOT_PATH_PLAN_CACHE_MODE) only a literal lets the endpoint's waiting index (deliveries_endpoint_waiting_idx,
    // hence endpoint_id) serve the query.
    const its = (statuses: SQL) => sql`destination_id = ${input.destinationId} and organization_id = ${ctx.organizationId}
      and endpoint_id = ${destination.endpoint_id} and id >= ${floor} and ${statuses}`;

    const page = await tx.db.execute<{ id: string }>(sql`select id from deliveries where ${its(sql`status = 'pending'`)} limit ${END_DESTINATION_BATCH_SIZE}`);
    if (page.length > 0) {
      // keepDelivered: one delivered since the page was read stays delivered.
      const rows = await tx.db.execute<{ id: string }>(BURY({ organizationId: ctx.organizationId, ids: page.map((row) => row.id), keepDelivered: true }));
      await removeJobs(tx.db, rows.map((row) => deliverJobKey(row.id)));
      if (rows.length > 0) {
        // BURY says "buried on request"; this says whose request, keeping the prefix the dead-delivery alert skips.
        await tx.db.execute(sql`
          update deliveries set last_error = ${BURIED_WHY} || substr(last_error, ${BURIED_PREFIX.length + 1})
          where ${inArray(deliveries.id, rows.map((row) => row.id))} and organization_id = ${ctx.organizationId}
            and status = 'dead' and starts_with(last_error, ${BURIED_PREFIX})`);
      }
      // The row goes in a later run, in a transaction of its own, never one holding deliveries' locks.
      return { state: "more", buried: rows.length };
    }

    const [inFlight] = await tx.db.execute<{ any: boolean }>(sql`select exists (select 1 from deliveries where ${its(sql`status = 'delivering'`)}) as any`);
    if (inFlight!.any) return { state: "later", runAt: new Date(Date.now() + IN_FLIGHT_RECHECK_MS) };
    const graceLeftMs = Number(destination.grace_left_ms);
    if (graceLeftMs > 0) return { state: "later", runAt: new Date(Date.now() + Math.ceil(graceLeftMs)) };
    // Still nothing open as it goes (a replay may have made one pending since): else another run buries it first.
    const removed = await tx.db.execute<{ id: string }>(sql`
      delete from destinations d where d.id = ${input.destinationId} and d.organization_id = ${ctx.organizationId} and d.deleted_at is not null
        and not exists (select 1 from deliveries where ${its(sql`status in ('pending', 'delivering')`)})
      returning d.id`);
    return removed.length > 0 ? { state: "removed" } : { state: "more", buried: 0 };
  });
}
