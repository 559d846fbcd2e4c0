import { and, eq } from "drizzle-orm";
import { endpoints } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";

/** The endpoint row of ctx's organization; another organization's id is simply not found. */
export async function getEndpointRowOrThrow({ ctx, input }: { ctx: Ctx; input: { id: string } }) {
  const [row] = await ctx.db
    .select()
    .from(endpoints)
    .where(and(eq(endpoints.id, input.id), eq(endpoints.organizationId, ctx.organizationId)))
    .limit(1);
  if (!row) throw new NotFoundError("Endpoint");
  return row;
}
