import { and, eq } from "drizzle-orm";
import { endpoints } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { forgetEndpoint } from "@/lib/ingest/endpoint-cache";

/** Deletes the endpoint and, with it, its deliveries; its ingest URL answers 404 from then on. */
export async function deleteEndpoint({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<void> {
  const deleted = await ctx.db
    .delete(endpoints)
    .where(and(eq(endpoints.id, input.id), eq(endpoints.organizationId, ctx.organizationId)))
    .returning({ id: endpoints.id });
  if (deleted.length === 0) throw new NotFoundError("Endpoint");
  forgetEndpoint(input.id);
}
