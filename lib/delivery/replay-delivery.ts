import { and, eq } from "drizzle-orm";
import { deliveries } from "@/db/schema";
import { deliverJobSpec, enqueue } from "@/lib/queue/enqueue";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { AttemptInFlightError, NotFoundError } from "@/lib/errors";
import { logDelivery } from "@/lib/logging/log-delivery";
import { keepDedupeKeys, noAttemptInFlight, replayedState } from "./replayed-state";

/**
 * Puts one delivery back to `pending` and enqueues an attempt marked `replay`, in one transaction.
 * Its automatic attempts start over (maxAttempts counts from the replay). A delivery with an
 * attempt in flight cannot be replayed until that attempt ends (409 attempt_in_flight), even when it
 * was buried meanwhile: two attempts at once, and a claim the first attempt's finish no longer matches.
 */
export async function replayDelivery({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<{ id: string; status: "pending" }> {
  const result = await withTransaction(ctx, async (tx) => {
    const [row] = await tx.db
      .update(deliveries)
      .set(replayedState())
      .where(and(eq(deliveries.id, input.id), eq(deliveries.organizationId, ctx.organizationId), noAttemptInFlight))
      .returning({ id: deliveries.id, endpointId: deliveries.endpointId, externalId: deliveries.externalId });
    if (!row) {
      const [existing] = await tx.db
        .select({ status: deliveries.status })
        .from(deliveries)
        .where(and(eq(deliveries.id, input.id), eq(deliveries.organizationId, ctx.organizationId)));
      if (!existing) throw new NotFoundError("Delivery");
      throw new AttemptInFlightError();
    }
    await keepDedupeKeys(tx.db, [row]);
    await enqueue(tx.db, [deliverJobSpec({ deliveryId: row.id, endpointId: row.endpointId, trigger: "replay" })]);
    await recordAudit(tx, { action: "delivery.replayed", target: { type: "delivery", id: row.id }, details: { endpointId: row.endpointId } });
    return { id: row.id, status: "pending" as const };
  });
  logDelivery({ deliveryId: result.id, organizationId: ctx.organizationId }, `replay requested (${ctx.actor.type})`);
  return result;
}
