// BURY: moves deliveries of one organization to `dead`, nothing scheduled, not parked; the last error says
// why. One delivery (bury-delivery.ts) or a page of a bulk selection (bury-deliveries.ts): the same statement,
// with one id or a page's. An attempt in flight keeps its claim: it finishes and is recorded, and if the
// destination accepts it, the delivery ends `delivered` (sql/finish.ts in the engine). The caller removes
// the waiting jobs of the rows it returns in the same transaction (lib/queue/queue-tables.ts removeJobs).
import { inArray, sql, type SQL } from "drizzle-orm";
import { deliveries } from "@/db/schema";

/** How BURY's last error begins: a dead row's only mark of a bury before dead_reason (migration 0046). */
export const BURIED_PREFIX = "buried on request";

/**
 * `keepDelivered` (the dashboard) leaves delivered deliveries alone too. Returns the deliveries buried: a
 * dead one, or one not of `organizationId`, is not.
 */
export const BURY = (input: { organizationId: string; ids: string[]; keepDelivered: boolean }): SQL => sql`
  -- Rows locked in id order, as the worker's batched claims and finishes lock the rows they move, so a page of
  -- a bulk bury and a batch that share rows wait for each other instead of deadlocking.
  with locked as materialized (
    select id from deliveries
    where ${inArray(deliveries.id, input.ids)} and organization_id = ${input.organizationId}
    order by id for update
  )
  update deliveries set
    status = 'dead', dead_reason = 'buried', next_attempt_at = null, parked_at = null,
    last_error = ${BURIED_PREFIX} || coalesce('; last error: ' || deliveries.last_error, ''), updated_at = now()
  from locked
  -- The ids named again, so that the update reads only their weeks' partitions.
  where deliveries.id = locked.id and ${inArray(deliveries.id, input.ids)} and deliveries.organization_id = ${input.organizationId}
    -- A filtered row went to no destination: nothing to bury (API.md).
    and deliveries.status not in ('dead', 'filtered') ${input.keepDelivered ? sql`and deliveries.status <> 'delivered'` : sql``}
  returning deliveries.id, deliveries.endpoint_id`;
