import { and, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { deliveries, deliveryPayloads } from "@/db/schema";
import { deliverJobSpec, enqueue } from "@/lib/queue/enqueue";
import { recordAudit } from "@/lib/audit/record-audit";
import type { Tx } from "@/db";
import { withTransaction, type Ctx } from "@/lib/context";
import { filterInputOf, lanesFor, loadRoutableDestinations } from "@/lib/destinations/route-request";
import { AttemptInFlightError, ConflictError, NotFoundError, ValidationError } from "@/lib/errors";
import { logDelivery } from "@/lib/logging/log-delivery";
import { rowsOfRequestWhere, type DeliveryRow } from "./request-rows";
import { REPLAY } from "./sql/replay";
import { ROUTE_AGAIN } from "./sql/route-again";

/** What a replay or a bury of one delivery may name: one of its destinations (API.md "Destinations"). */
export const oneDeliveryInput = z.object({ destinationId: z.string().min(1).max(64).optional() }).strict();

export function parseOneDeliveryInput(body: unknown): { destinationId?: string } {
  const parsed = oneDeliveryInput.safeParse(body ?? {});
  if (!parsed.success) throw new ValidationError(`Expected {destinationId?}: ${parsed.error.issues[0]?.message ?? "invalid"}.`);
  return parsed.data;
}

/** The rows of request `id` a replay or bury names: every one, or its row for `destinationId`. 404 when none. */
export async function namedRows(tx: { db: Tx }, ctx: Ctx, input: { id: string; destinationId?: string }): Promise<DeliveryRow[]> {
  const rows = await tx.db
    .select()
    .from(deliveries)
    .where(and(eq(deliveries.organizationId, ctx.organizationId), rowsOfRequestWhere(input.id), input.destinationId ? eq(deliveries.destinationId, input.destinationId) : undefined))
    .orderBy(deliveries.id);
  if (rows.length === 0) throw new NotFoundError("Delivery");
  return rows;
}

/**
 * Puts one stored request back to `pending` for each destination it went to (or the one named), and enqueues
 * an attempt marked `replay` for each, in one transaction. Their automatic attempts start over (maxAttempts
 * counts from the replay). A destination with an attempt in flight cannot be replayed until that attempt ends
 * (409 attempt_in_flight, nothing replayed), even when it was buried meanwhile: two attempts at once, and a
 * claim the first attempt's finish no longer matches. A request no destination took (`filtered`) is matched
 * against its endpoint's filters as they are now, and goes to those that match.
 */
export async function replayDelivery({ ctx, input }: { ctx: Ctx; input: { id: string; destinationId?: string } }): Promise<{ id: string; status: "pending" | "filtered" }> {
  const result = await withTransaction(ctx, async (tx) => {
    const rows = await namedRows(tx, ctx, input);
    const filtered = rows.filter((row) => row.status === "filtered");
    const routed = rows.filter((row) => row.status !== "filtered");
    let status: "pending" | "filtered" = "pending";
    if (routed.length > 0) {
      const replayed = await tx.db.execute<{ id: string; endpoint_id: string; destination_id: string }>(
        REPLAY({ organizationId: ctx.organizationId, ids: routed.map((row) => row.id) }),
      );
      // Left out: one with an attempt in flight (409, nothing replayed), or one whose destination was deleted.
      if (replayed.length < routed.length) {
        const done = new Set([...replayed].map((row) => row.id));
        const left = routed.filter((row) => !done.has(row.id));
        const [found] = await tx.db.execute<{ n: number; in_flight: number }>(sql`
          select count(*)::int as n,
            (count(*) filter (where status = 'delivering' or (claimed_by_job is not null and lease_expires_at >= now())))::int as in_flight
          from deliveries where ${inArray(deliveries.id, left.map((row) => row.id))} and organization_id = ${ctx.organizationId}`);
        if (found!.in_flight > 0) throw new AttemptInFlightError();
        // Gone meanwhile (retention took it between the read and the lock): as if it had not been found.
        if (replayed.length === 0 && found!.n === 0) throw new NotFoundError("Delivery");
        if (replayed.length === 0) throw new ConflictError("Its destination was deleted: there is nowhere to replay it.");
      }
      // Keyed (one delivery's): each replaces a retry's job still waiting.
      await enqueue(tx.db, [...replayed].map((row) => deliverJobSpec({ deliveryId: row.id, destinationId: row.destination_id, trigger: "replay" })));
    }
    if (filtered.length > 0 && !(await routeAgain(tx, ctx, filtered[0]!))) status = routed.length > 0 ? "pending" : "filtered";
    await recordAudit(tx, {
      action: "delivery.replayed",
      target: { type: "delivery", id: input.id },
      details: { endpointId: rows[0]!.endpointId, ...(input.destinationId ? { destinationId: input.destinationId } : {}) },
    });
    return { id: input.id, status };
  });
  logDelivery({ deliveryId: result.id, organizationId: ctx.organizationId }, `replay requested (${ctx.actor.type})${input.destinationId ? ` for destination ${input.destinationId}` : ""}`);
  return result;
}

/**
 * A `filtered` request matched again against its endpoint's filters as they are now: its row becomes the first
 * matching destination's (the row's id is the request's) and the others get rows of their own, each pending with
 * a replay job. False when still nothing matches (nothing changes).
 */
async function routeAgain(tx: { db: Tx }, ctx: Ctx, row: DeliveryRow): Promise<boolean> {
  const [payload] = await tx.db
    .select({ headers: deliveryPayloads.headers, body: deliveryPayloads.body })
    .from(deliveryPayloads)
    .where(and(eq(deliveryPayloads.deliveryId, row.id), eq(deliveryPayloads.organizationId, ctx.organizationId)));
  if (!payload) return false;
  const destinations = await loadRoutableDestinations(tx.db, row.endpointId);
  // The URL it was sent to is not kept: the path of the endpoint's ingest URL and no query stand for it.
  const lanes = lanesFor({ id: row.id, endpointId: row.endpointId, externalId: row.externalId }, destinations, () =>
    filterInputOf({ headers: payload.headers, body: payload.body, url: `/in/${row.endpointId}` }));
  if (lanes[0]!.filtered) return false;
  const routed = await tx.db.execute<{ id: string; destination_id: string }>(ROUTE_AGAIN({ organizationId: ctx.organizationId, requestId: row.id, lanes }));
  await enqueue(tx.db, [...routed].map((lane) => deliverJobSpec({ deliveryId: lane.id, destinationId: lane.destination_id, trigger: "replay" })));
  return routed.length > 0;
}
