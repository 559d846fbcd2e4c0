import { and, eq, sql } from "drizzle-orm";
import { destinations } from "@/db/schema";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { DefaultDestinationError, NotFoundError } from "@/lib/errors";
import { enqueue } from "@/lib/queue/enqueue";
import { jobSpec } from "@/lib/queue/job-registry";
import { getDestinationRowOrThrow, namedDestination } from "./get-destination-or-throw";

/**
 * Deletes a destination at once: from the commit on it is hidden from every read and from ingest (other web
 * processes within their endpoint cache's few seconds), and paused, so the engine parks whatever it claims of
 * it. Its waiting deliveries are buried, and its row removed once none is open, by a job queued in this
 * transaction (lib/delivery/end-destination-deliveries.ts). The default destination is never deleted (409
 * `default_destination`): it holds the endpoint's own destination fields; deleting the endpoint removes it.
 * The caller forgets the endpoint's cached routing afterwards (the route does).
 */
export async function deleteDestination({ ctx, input }: { ctx: Ctx; input: { endpointId: string; id: string } }): Promise<void> {
  await withTransaction(ctx, async (ctx) => {
    const [deleted] = await ctx.db
      .update(destinations)
      .set({ deletedAt: sql`now()`, paused: true, updatedAt: sql`now()` })
      .where(and(namedDestination(ctx.organizationId, input), eq(destinations.isDefault, false)))
      .returning({ id: destinations.id, name: destinations.name });
    if (!deleted) {
      // Not deleted: the default one (409), or none of this endpoint's, or deleted already (404).
      const existing = await getDestinationRowOrThrow({ ctx, input });
      if (existing.isDefault) throw new DefaultDestinationError();
      throw new NotFoundError("Destination");
    }
    await recordAudit(ctx, { action: "destination.deleted", target: { type: "destination", id: deleted.id }, details: { endpointId: input.endpointId, name: deleted.name } });
    await enqueue(ctx.db, [jobSpec("end-destination-deliveries", { organizationId: ctx.organizationId, destinationId: deleted.id })]);
  });
}
