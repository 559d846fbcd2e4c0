import { and, eq, sql } from "drizzle-orm";
import { endpoints } from "@/db/schema";
import { withTransaction, type Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import { anyParked, drizzleRunner, lockEndpointSlots, orgInFlightSql, wakeParkedDeliveries } from "./engine/endpoint-slots";
import { deliverySettings } from "./engine/settings";

/**
 * Starts delivering what an endpoint held while it was paused (ingest stored it parked) or parked at
 * its cap: as many of its oldest parked deliveries as it has free slots get their job again; each
 * finished attempt then takes the next oldest (a chain, bounded) or wakes it as a job queued behind
 * other endpoints' work, so a long backlog drains oldest first at the endpoint's cap without holding
 * the worker. When its organization has no slot free, the endpoint joins the organization's waiting
 * list, so the next slot freed there comes to it (endpoint-slots.ts). Does nothing while the
 * endpoint is paused. Call it after the unpause has committed (lib/endpoints/update-endpoint.ts
 * does): ingest decides "paused" on the endpoint's newest committed row (lib/ingest/group-commit.ts).
 */
export async function resumeEndpointDeliveries({ ctx, input }: { ctx: Ctx; input: { endpointId: string } }): Promise<{ woken: number }> {
  return withTransaction(ctx, async (tx) => {
    const [endpoint] = await tx.db
      .select({ id: endpoints.id })
      .from(endpoints)
      .where(and(eq(endpoints.id, input.endpointId), eq(endpoints.organizationId, ctx.organizationId)));
    if (!endpoint) throw new NotFoundError("Endpoint");
    const run = drizzleRunner(tx.db);
    const caps = deliverySettings();
    await lockEndpointSlots(run, endpoint.id);
    const woken = await wakeParkedDeliveries(run, { endpointId: endpoint.id, caps, floor: await deliveryIdFloor(tx.db, ctx.organizationId) });
    await run(sql`
      insert into org_waiting_endpoints (organization_id, endpoint_id)
      select e.organization_id, e.id from endpoints e
      where e.id = ${endpoint.id} and e.organization_id = ${ctx.organizationId} and not e.paused
        and ${sql.raw(orgInFlightSql("e.organization_id"))} >= ${caps.orgConcurrency}::int
        and ${anyParked(endpoint.id)}
      on conflict do nothing`);
    return { woken: woken.length };
  });
}
