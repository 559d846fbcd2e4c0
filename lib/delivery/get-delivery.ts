import { and, asc, eq, inArray } from "drizzle-orm";
import { attempts, deliveryPayloads } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { presentDelivery, type DeliveryDetail } from "./presentation/present-delivery";
import { destinationNames, rowsOfRequests } from "./request-rows";

/**
 * One stored request of ctx's organization with headers, body, its destinations' rows and every attempt; another
 * organization's is not found.
 */
export async function getDelivery({ ctx, input }: { ctx: Ctx; input: { id: string } }): Promise<DeliveryDetail> {
  const rows = (await rowsOfRequests(ctx.db, ctx.organizationId, [input.id])).get(input.id) ?? [];
  if (rows.length === 0) throw new NotFoundError("Delivery");
  const [payload] = await ctx.db
    .select({ headers: deliveryPayloads.headers, body: deliveryPayloads.body })
    .from(deliveryPayloads)
    .where(and(eq(deliveryPayloads.deliveryId, input.id), eq(deliveryPayloads.organizationId, ctx.organizationId)));
  if (!payload) throw new NotFoundError("Delivery");
  const attemptRows = await ctx.db
    .select()
    .from(attempts)
    .where(and(inArray(attempts.deliveryId, rows.map((row) => row.id)), eq(attempts.organizationId, ctx.organizationId)))
    .orderBy(asc(attempts.number));
  return presentDelivery(rows, payload, attemptRows, await destinationNames(ctx.db, ctx.organizationId, rows));
}
