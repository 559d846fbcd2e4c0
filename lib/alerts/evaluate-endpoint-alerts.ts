import { and, eq, sql } from "drizzle-orm";
import { destinations, endpoints } from "@/db/schema";
import { withTransaction, type Ctx } from "@/lib/context";
import { joinDefaultDestination } from "@/lib/destinations/default-destination";
import { evaluateAutoPauses } from "./evaluate-auto-pauses";
import { evaluateDeadDeliveries } from "./evaluate-dead-deliveries";
import { evaluateDestinationDeadDeliveries } from "./evaluate-destination-dead-deliveries";
import { evaluateDestinationPendingAge } from "./evaluate-destination-pending-age";
import { evaluatePendingAge } from "./evaluate-pending-age";

/**
 * Evaluates one endpoint's alerts as of `now` in one transaction: incident changes, their mails and the
 * mails' send jobs commit together. An advisory lock per endpoint keeps two overlapping checks from
 * deciding twice (the partial unique index on open incidents is the backstop). `autoPausesOnly`: a resume
 * resolves its destination's automatic-pause incident at once (lib/endpoints), without the other checks.
 */
export async function evaluateEndpointAlerts({ ctx, input }: { ctx: Ctx; input: { endpointId: string; now: Date; autoPausesOnly?: boolean } }): Promise<void> {
  await withTransaction(ctx, async (tx) => {
    await tx.db.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`alerts:${input.endpointId}`}, 0))`);
    const [endpoint] = await tx.db
      .select({
        id: endpoints.id,
        name: endpoints.name,
        paused: destinations.paused,
        alertPendingAgeSeconds: endpoints.alertPendingAgeSeconds,
        alertEmail: endpoints.alertEmail,
      })
      .from(endpoints)
      // Its default destination holds the endpoint's `paused` (API.md "Destinations").
      .innerJoin(destinations, joinDefaultDestination)
      .where(and(eq(endpoints.organizationId, ctx.organizationId), eq(endpoints.id, input.endpointId)));
    if (!endpoint) return; // deleted since the sweep listed it; its incidents went with it
    await evaluateAutoPauses({ ctx: tx, input: { endpoint, now: input.now } });
    if (input.autoPausesOnly) return;
    await evaluatePendingAge({ ctx: tx, input: { endpoint, now: input.now } });
    await evaluateDestinationPendingAge({ ctx: tx, input: { endpoint, now: input.now } });
    await evaluateDeadDeliveries({ ctx: tx, input: { endpoint, now: input.now } });
    await evaluateDestinationDeadDeliveries({ ctx: tx, input: { endpoint, now: input.now } });
  });
}
