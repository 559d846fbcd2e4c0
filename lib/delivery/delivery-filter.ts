import { and, eq, gte, like, lte, type SQL } from "drizzle-orm";
import { z } from "zod";
import { DELIVERY_STATUSES, deliveries } from "@/db/schema";
import { isoTime } from "@/lib/time-input";
import { assertStorableText, parseInput } from "@/lib/validation";


/** The filter shared by the list and the bulk replay/bury calls. */
export const DeliveryFilter = z.object({
  endpointId: z.string().max(100).optional(),
  /** A request's row for that destination (API.md "Destinations"). */
  destinationId: z.string().max(100).optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  eventType: z.string().max(200).optional(),
  since: isoTime.optional(),
  until: isoTime.optional(),
});
export type DeliveryFilter = z.infer<typeof DeliveryFilter>;

/** Reads the filter from query parameters (empty values are ignored). */
export function deliveryFilterFromQuery(query: URLSearchParams): DeliveryFilter & { q?: string } {
  const pick = (name: string) => query.get(name)?.trim() || undefined;
  const filter = parseInput(DeliveryFilter, {
    endpointId: pick("endpointId"), destinationId: pick("destinationId"), status: pick("status"), eventType: pick("eventType"), since: pick("since"), until: pick("until"),
  });
  const q = pick("q");
  assertStorableText(q, "The search q"); // q is not in the schema; a NUL would reach SQL
  return { ...filter, q };
}

/**
 * Exactly, or by prefix when it ends in `*` (`invoice.*`: invoice.paid, not invoices.x; `*` alone: any event
 * type). The prefix is literal: LIKE's % and _ in it are escaped.
 */
function eventTypeWhere(eventType: string): SQL {
  if (!eventType.endsWith("*")) return eq(deliveries.eventType, eventType);
  return like(deliveries.eventType, `${eventType.slice(0, -1).replace(/[%_\\]/g, "\\$&")}%`);
}

/**
 * SQL conditions for the filter, always scoped to the organization, and from its delivery id floor on
 * (deliveryIdFloor, lib/storage/delivery-id-floor.ts): the same rows, planned over its own weeks' partitions only.
 */
export function deliveryFilterWhere(organizationId: string, idFloor: string, filter: DeliveryFilter): SQL {
  return and(
    eq(deliveries.organizationId, organizationId),
    gte(deliveries.id, idFloor),
    filter.endpointId ? eq(deliveries.endpointId, filter.endpointId) : undefined,
    filter.destinationId ? eq(deliveries.destinationId, filter.destinationId) : undefined,
    filter.status ? eq(deliveries.status, filter.status) : undefined,
    filter.eventType ? eventTypeWhere(filter.eventType) : undefined,
    filter.since ? gte(deliveries.receivedAt, new Date(filter.since)) : undefined,
    filter.until ? lte(deliveries.receivedAt, new Date(filter.until)) : undefined,
  )!;
}
