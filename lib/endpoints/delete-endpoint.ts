import { and, eq } from "drizzle-orm";
import { endpoints } from "@/db/schema";
import { enqueue } from "@/lib/queue/enqueue";
import { closeIncidentsOnDeletion } from "@/lib/alerts/close-incidents-on-deletion";
import { recordAudit } from "@/lib/audit/record-audit";
import { withTransaction, type Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { forgetEndpoint } from "@/lib/endpoints/endpoint-cache";
import { jobSpec } from "@/lib/queue/job-registry";

/**
 * Deletes the endpoint at once: its ingest URL answers 404 from the commit on (other web processes
 * within their endpoint cache's few seconds), and the delivery worker gives up on its deliveries.
 * Those deliveries and their attempts are removed in the background in bounded batches
 * (purge-endpoint-deliveries.ts), by a job queued in this transaction, so a big endpoint costs the
 * request one row.
 */
export async function deleteEndpoint({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<void> {
  await withTransaction(ctx, async (ctx) => {
    await closeIncidentsOnDeletion({ ctx, input: { endpointId: input.id } });
    const deleted = await ctx.db
      .delete(endpoints)
      .where(and(eq(endpoints.id, input.id), eq(endpoints.organizationId, ctx.organizationId)))
      .returning({ id: endpoints.id, name: endpoints.name });
    if (deleted.length === 0) throw new NotFoundError("Endpoint");
    await recordAudit(ctx, { action: "endpoint.deleted", target: { type: "endpoint", id: input.id }, details: { name: deleted[0]!.name } });
    await enqueue(ctx.db, [jobSpec("purge-endpoint-deliveries", { organizationId: ctx.organizationId, endpointId: input.id })]);
  });
  forgetEndpoint(input.id);
}
