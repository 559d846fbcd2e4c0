import type { Ctx } from "@/lib/context";
import { readDeliveryStats, type DeliveryStats } from "@/lib/metrics/read-delivery-stats";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import { getDestinationRowOrThrow } from "./get-destination-or-throw";

/**
 * GET /endpoints/{id}/destinations/{destinationId}/stats: the endpoint's stats for this destination alone
 * (lib/metrics/read-delivery-stats.ts); its endpoint's are the sums over its destinations, the oldest age their largest.
 */
export async function getDestinationStats({ ctx, input }: { ctx: Ctx; input: { endpointId: string; id: string } }): Promise<DeliveryStats> {
  const destination = await getDestinationRowOrThrow({ ctx, input });
  return readDeliveryStats(ctx, { endpointId: destination.endpointId, destinationId: destination.id }, await deliveryIdFloor(ctx.db, ctx.organizationId));
}
