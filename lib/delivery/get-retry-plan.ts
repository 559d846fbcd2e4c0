import { and, eq } from "drizzle-orm";
import { deliveries, endpoints } from "@/db/schema";
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
      maxAttempts: endpoints.maxAttempts,
      retryBaseSeconds: endpoints.retryBaseSeconds,
      paused: endpoints.paused,
    })
    .from(deliveries)
    .innerJoin(endpoints, eq(endpoints.id, deliveries.endpointId))
    .where(and(eq(deliveries.id, input.id), eq(deliveries.organizationId, ctx.organizationId)))
    .limit(1);
  if (!row) throw new NotFoundError("Delivery");
  return retryPlan(row);
}
