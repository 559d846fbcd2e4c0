import { and, eq } from "drizzle-orm";
import { endpoints } from "@/db/schema";
import { withTransaction, type Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { drizzleRunner, lockEndpointSlots, wakeParkedDeliveries } from "./engine/endpoint-slots";
import { deliverySettings } from "./engine/settings";

/**
 * Starts delivering what an endpoint held while it was paused (or parked at its cap): as many of
 * its oldest parked deliveries as it has free slots get their job again; each finished attempt
 * then wakes the next, so a long backlog drains at the endpoint's cap. Does nothing while the
 * endpoint is paused. Call it after unpausing (lib/endpoints/update-endpoint.ts does).
 */
export async function resumeEndpointDeliveries({ ctx, input }: { ctx: Ctx; input: { endpointId: string } }): Promise<{ woken: number }> {
  return withTransaction(ctx, async (tx) => {
    const [endpoint] = await tx.db
      .select({ id: endpoints.id })
      .from(endpoints)
      .where(and(eq(endpoints.id, input.endpointId), eq(endpoints.organizationId, ctx.organizationId)));
    if (!endpoint) throw new NotFoundError("Endpoint");
    const run = drizzleRunner(tx.db);
    await lockEndpointSlots(run, endpoint.id);
    const woken = await wakeParkedDeliveries(run, { endpointId: endpoint.id, caps: deliverySettings() });
    return { woken: woken.length };
  });
}
