import type { Ctx } from "@/lib/context";
import { readDeliveryStats, type DeliveryStats } from "@/lib/metrics/read-delivery-stats";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import { getEndpointRowOrThrow } from "./get-endpoint-or-throw";

export type EndpointStats = DeliveryStats;

/** GET /endpoints/{id}/stats: the endpoint's counts over all its destinations (lib/metrics/read-delivery-stats.ts). */
export async function getEndpointStats({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<EndpointStats> {
  const endpoint = await getEndpointRowOrThrow({ ctx, input });
  return readDeliveryStats(ctx, { endpointId: endpoint.id }, await deliveryIdFloor(ctx.db, ctx.organizationId));
}
