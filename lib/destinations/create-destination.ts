import { and, count, eq, isNull, sql } from "drizzle-orm";
import { destinations } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { config } from "@/lib/config/config";
import { withTransaction, type Ctx } from "@/lib/context";
import { LimitReachedError, NotFoundError } from "@/lib/errors";
import { parseInput } from "@/lib/validation";
import { checkedAlertChannelIds } from "./alert-channel-ids";
import { auditedDestinationSettings } from "./destination-audit-details";
import { newDestinationId } from "./destination-ids";
import { assertUrlFitsType, assertValidFilter, CreateDestinationInput, storedDeliverySettings } from "./destination-input";
import { presentDestination, type DestinationView } from "./present-destination";

/**
 * Adds a destination to an endpoint of ctx's organization, within ENDPOINT_MAX_DESTINATIONS (its default one and
 * every other not deleted count). The caller forgets the endpoint's cached routing afterwards (the route does).
 */
export async function createDestination({ ctx, input }: { ctx: Ctx; input: { endpointId: string; body: unknown } }): Promise<DestinationView> {
  const data = parseInput(CreateDestinationInput, input.body);
  assertValidFilter(data.filter);
  await assertUrlFitsType(data.type, data.url, { required: true });
  const alertChannelIds = await checkedAlertChannelIds(ctx, data.alertChannelIds);
  const row = await withTransaction(ctx, async (ctx) => {
    // The endpoint's row locked until the commit, so two creates at the limit − 1 cannot both count the same
    // number. FOR NO KEY UPDATE: the KEY SHARE locks of inserts that reference the endpoint do not wait on it.
    const [endpoint] = await ctx.db.execute<{ id: string }>(sql`
      select id from endpoints where id = ${input.endpointId} and organization_id = ${ctx.organizationId} for no key update`);
    if (!endpoint) throw new NotFoundError("Endpoint");
    const [existing] = await ctx.db
      .select({ n: count() })
      .from(destinations)
      .where(and(eq(destinations.endpointId, endpoint.id), eq(destinations.organizationId, ctx.organizationId), isNull(destinations.deletedAt)));
    const max = config().ENDPOINT_MAX_DESTINATIONS;
    if (existing!.n >= max) {
      throw new LimitReachedError(`This endpoint has reached its limit of ${max} destinations; delete one before adding another.`);
    }
    const [inserted] = await ctx.db
      .insert(destinations)
      .values({
        id: newDestinationId(),
        organizationId: ctx.organizationId,
        endpointId: endpoint.id,
        name: data.name,
        type: data.type,
        url: data.type === "http" ? data.url! : null,
        isDefault: false,
        filter: data.filter ?? null,
        ratePerSecond: data.rateLimit?.perSecond ?? null,
        rateBurst: data.rateLimit?.burst ?? null,
        orderingKey: data.orderingKey ?? null,
        alertChannelIds: alertChannelIds ?? null,
        autoPauseFailures: data.autoPause?.consecutiveFailures ?? null,
        autoPauseMinutes: data.autoPause?.minutes ?? null,
        deadThreshold: data.deadThreshold ?? null,
        deadWindowMinutes: data.deadWindowMinutes ?? null,
        alertPendingAgeSeconds: data.alertPendingAgeSeconds ?? null,
        ...storedDeliverySettings(data),
      })
      .returning();
    await recordAudit(ctx, { action: "destination.created", target: { type: "destination", id: inserted!.id }, details: auditedDestinationSettings(inserted!) });
    return inserted!;
  });
  return presentDestination(row);
}
