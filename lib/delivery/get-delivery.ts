import { and, asc, eq } from "drizzle-orm";
import { attempts, deliveries, deliveryPayloads } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { presentDelivery, type DeliveryDetail } from "./presentation/present-delivery";

/** One delivery of ctx's organization with headers, body and attempts; another organization's is not found. */
export async function getDelivery({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<DeliveryDetail> {
  const [found] = await ctx.db
    .select({ delivery: deliveries, payload: { headers: deliveryPayloads.headers, body: deliveryPayloads.body } })
    .from(deliveries)
    .innerJoin(deliveryPayloads, and(eq(deliveryPayloads.deliveryId, deliveries.id), eq(deliveryPayloads.organizationId, deliveries.organizationId)))
    .where(and(eq(deliveries.id, input.id), eq(deliveries.organizationId, ctx.organizationId)))
    .limit(1);
  if (!found) throw new NotFoundError("Delivery");
  const { delivery: row, payload } = found;
  const attemptRows = await ctx.db
    .select()
    .from(attempts)
    .where(and(eq(attempts.deliveryId, row.id), eq(attempts.organizationId, ctx.organizationId)))
    .orderBy(asc(attempts.number));
  return presentDelivery(row, payload, attemptRows);
}
