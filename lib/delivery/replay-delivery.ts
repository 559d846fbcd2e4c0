import { and, eq } from "drizzle-orm";
import { deliveries } from "@/db/schema";
import { deliverJobSpec, enqueue } from "@/lib/queue/enqueue";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { AttemptInFlightError, NotFoundError } from "@/lib/errors";
import { logDelivery } from "@/lib/logging/log-delivery";
import { REPLAY } from "./sql/replay";

/**
 * Puts one delivery back to `pending` and enqueues an attempt marked `replay`, in one transaction.
 * Its automatic attempts start over (maxAttempts counts from the replay). A delivery with an
 * attempt in flight cannot be replayed until that attempt ends (409 attempt_in_flight), even when it
 * was buried meanwhile: two attempts at once, and a claim the first attempt's finish no longer matches.
 */
export async function replayDelivery({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<{ id: string; status: "pending" }> {
  const result = await withTransaction(ctx, async (tx) => {
    const [row] = await tx.db.execute<{ id: string; endpoint_id: string; destination_id: string }>(REPLAY({ organizationId: ctx.organizationId, ids: [input.id] }));
    if (!row) {
      const [existing] = await tx.db
        .select({ status: deliveries.status })
        .from(deliveries)
        .where(and(eq(deliveries.id, input.id), eq(deliveries.organizationId, ctx.organizationId)));
      if (!existing) throw new NotFoundError("Delivery");
      throw new AttemptInFlightError();
    }
    // Keyed (one delivery's): it replaces a retry's job still waiting.
    await enqueue(tx.db, [deliverJobSpec({ deliveryId: row.id, destinationId: row.destination_id, trigger: "replay" })]);
    await recordAudit(tx, { action: "delivery.replayed", target: { type: "delivery", id: row.id }, details: { endpointId: row.endpoint_id } });
    return { id: row.id, status: "pending" as const };
  });
  logDelivery({ deliveryId: result.id, organizationId: ctx.organizationId }, `replay requested (${ctx.actor.type})`);
  return result;
}
