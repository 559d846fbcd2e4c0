import { and, eq } from "drizzle-orm";
import { deliveries, destinations } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { retryPlan, type RetryPlan } from "./retry-plan";

/** The retry plan of one delivery of ctx's organization (null once settled); another organization's is not found. */
export async function getRetryPlan({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<RetryPlan | null> {
  const [row] = await ctx.db
    .select({
      status: deliveries.status,
      autoAttemptCount: deliveries.autoAttemptCount,
      nextAttemptAt: deliveries.nextAttemptAt,
      maxAttempts: destinations.maxAttempts,
      retryBaseSeconds: destinations.retryBaseSeconds,
      paused: destinations.paused,
    })
    .from(deliveries)
    // Its retries and pause are its destination's (an endpoint's default one unless it has several).
    .innerJoin(destinations, and(eq(destinations.id, deliveries.destinationId), eq(destinations.organizationId, deliveries.organizationId)))
    .where(and(eq(deliveries.id, input.id), eq(deliveries.organizationId, ctx.organizationId)))
    .limit(1);
  if (!row) throw new NotFoundError("Delivery");
  return retryPlan(row);
}
