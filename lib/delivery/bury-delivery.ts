import { and, eq } from "drizzle-orm";
import { deliveries } from "@/db/schema";
import { deliverJobKey } from "@/lib/queue/job-registry";
import { removeJobs } from "@/lib/queue/queue-tables";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { ConflictError, NotFoundError } from "@/lib/errors";
import { logDelivery } from "@/lib/logging/log-delivery";
import { BURY } from "./sql/bury";

/**
 * Moves one delivery to `dead` and cancels its scheduled attempt, in one transaction; it is kept
 * and can be replayed. Burying a dead delivery changes nothing. An attempt already in flight
 * finishes and is recorded; if the destination accepts it, the delivery ends `delivered`.
 * Only a change is audited (burying a dead delivery records nothing).
 * `keepDelivered` (the dashboard) refuses a delivered delivery (409) instead of burying it.
 */
export async function buryDelivery({ ctx, input }: { ctx: Ctx; input: { id: string; keepDelivered?: boolean } }): Promise<{ id: string; status: "dead" }> {
  const buried = await withTransaction(ctx, async (tx) => {
    const [row] = await tx.db.execute<{ id: string; endpoint_id: string }>(
      BURY({ organizationId: ctx.organizationId, ids: [input.id], keepDelivered: input.keepDelivered ?? false }),
    );
    if (row) {
      await removeJobs(tx.db, [deliverJobKey(row.id)]);
      await recordAudit(tx, { action: "delivery.buried", target: { type: "delivery", id: row.id }, details: { endpointId: row.endpoint_id } });
      return true;
    }
    const [existing] = await tx.db
      .select({ status: deliveries.status })
      .from(deliveries)
      .where(and(eq(deliveries.id, input.id), eq(deliveries.organizationId, ctx.organizationId)));
    if (!existing) throw new NotFoundError("Delivery");
    if (existing.status === "delivered") throw new ConflictError("This delivery was delivered meanwhile: there is nothing to bury.");
    return false;
  });
  if (buried) logDelivery({ deliveryId: input.id, organizationId: ctx.organizationId }, `buried on request (${ctx.actor.type})`);
  return { id: input.id, status: "dead" };
}
