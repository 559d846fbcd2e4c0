import { and, eq, isNotNull } from "drizzle-orm";
import { incidents } from "@/db/schema";
import type { Ctx } from "@/lib/context";

/** Writes why an incident's mail could not be sent (error), or clears it once one is sent (null). */
export async function recordNotifyOutcome({ ctx, input }: { ctx: Ctx; input: { incidentId: string; error: string | null } }): Promise<void> {
  const scope = and(eq(incidents.organizationId, ctx.organizationId), eq(incidents.id, input.incidentId));
  await ctx.db
    .update(incidents)
    .set({ notifyError: input.error, updatedAt: new Date() })
    .where(input.error === null ? and(scope, isNotNull(incidents.notifyError)) : scope);
}
