import { inArray, sql } from "drizzle-orm";
import { destinations } from "@/db/schema";
import { deliverJobKey } from "@/lib/queue/job-registry";
import { removeJobs } from "@/lib/queue/queue-tables";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { ConflictError } from "@/lib/errors";
import { logDelivery } from "@/lib/logging/log-delivery";
import { namedRows } from "./replay-delivery";
import { resumeEndpointDeliveries } from "./resume-endpoint-deliveries";
import { BURY } from "./sql/bury";

/**
 * Moves one stored request to `dead` for each destination it went to (or the one named) and cancels their
 * scheduled attempts, in one transaction; it is kept and can be replayed. Burying what is dead changes nothing.
 * An attempt already in flight finishes and is recorded; if the destination accepts it, that destination's
 * row ends `delivered`. Only a change is audited. `keepDelivered` (the dashboard) leaves delivered rows alone,
 * and refuses (409) when nothing else was left to bury; a request no destination took (`filtered`) has nothing
 * to bury either (409).
 */
export async function buryDelivery({ ctx, input }: { ctx: Ctx; input: { id: string; destinationId?: string; keepDelivered?: boolean } }): Promise<{ id: string; status: "dead" }> {
  const buried = await withTransaction(ctx, async (tx) => {
    const rows = await namedRows(tx, ctx, input);
    const routed = rows.filter((row) => row.status !== "filtered");
    if (routed.length === 0) throw new ConflictError("No destination took this delivery (filtered): there is nothing to bury.");
    const changed = await tx.db.execute<{ id: string; endpoint_id: string }>(
      BURY({ organizationId: ctx.organizationId, ids: routed.map((row) => row.id), keepDelivered: input.keepDelivered ?? false }),
    );
    if (changed.length > 0) {
      await removeJobs(tx.db, [...changed].map((row) => deliverJobKey(row.id)));
      await recordAudit(tx, {
        action: "delivery.buried",
        target: { type: "delivery", id: input.id },
        details: { endpointId: rows[0]!.endpointId, ...(input.destinationId ? { destinationId: input.destinationId } : {}) },
      });
      // An ordered destination's next delivery of the same value waits for this one to settle: its line is woken
      // after the commit, rather than at the rescue sweep's next minute.
      const [ordered] = await tx.db.execute<{ any: boolean }>(sql`select exists (select 1 from destinations
        where ${inArray(destinations.id, [...new Set(routed.map((row) => row.destinationId))])} and ordering_key is not null) as any`);
      return { endpointId: rows[0]!.endpointId, ordered: ordered!.any };
    }
    if (routed.every((row) => row.status === "delivered" || row.status === "dead") && routed.some((row) => row.status === "delivered") && input.keepDelivered) {
      throw new ConflictError("This delivery was delivered meanwhile: there is nothing to bury.");
    }
    return null;
  });
  if (buried?.ordered) await resumeEndpointDeliveries({ ctx, input: { endpointId: buried.endpointId } });
  if (buried) logDelivery({ deliveryId: input.id, organizationId: ctx.organizationId }, `buried on request (${ctx.actor.type})${input.destinationId ? ` for destination ${input.destinationId}` : ""}`);
  return { id: input.id, status: "dead" };
}
