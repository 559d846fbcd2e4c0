import { and, eq } from "drizzle-orm";
import { destinations, endpoints } from "@/db/schema";
import { withTransaction, type Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import { wakeResumedDestination } from "@/lib/delivery/engine";

/**
 * Starts delivering what an endpoint held while it was paused (ingest stored it parked) or parked at
 * its cap: as many of its oldest parked deliveries as it has free slots get their job again; each
 * finished attempt then takes the next oldest (a chain, bounded) or wakes it as a job queued behind
 * other endpoints' work, so a long backlog drains oldest first at the endpoint's cap without holding
 * the worker. When its organization has no slot free, the endpoint joins the organization's waiting
 * list, so the next slot freed there comes to it (engine/destination-slots.ts). Wakes each of its
 * destinations that is not paused. Call it after the unpause has committed (lib/endpoints/update-endpoint.ts
 * does): ingest decides "paused" on the endpoint's newest committed row (lib/ingest/group-commit.ts).
 */
export async function resumeEndpointDeliveries({ ctx, input }: { ctx: Ctx; input: { endpointId: string } }): Promise<{ woken: number }> {
  return withTransaction(ctx, async (tx) => {
    const [endpoint] = await tx.db
      .select({ id: endpoints.id })
      .from(endpoints)
      .where(and(eq(endpoints.id, input.endpointId), eq(endpoints.organizationId, ctx.organizationId)));
    if (!endpoint) throw new NotFoundError("Endpoint");
    const floor = await deliveryIdFloor(tx.db, ctx.organizationId);
    // Each destination in id order, so two resumes take the destinations' slot locks in one order.
    const lanes = await tx.db
      .select({ id: destinations.id })
      .from(destinations)
      .where(and(eq(destinations.endpointId, endpoint.id), eq(destinations.organizationId, ctx.organizationId)))
      .orderBy(destinations.id);
    let woken = 0;
    for (const lane of lanes) woken += await wakeResumedDestination(tx.db, { organizationId: ctx.organizationId, destinationId: lane.id, floor });
    return { woken };
  });
}
