import { and, eq, gte, inArray, sql } from "drizzle-orm";
import { deliveries, deliveryPayloads, endpoints, organizations } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { REQUEST_ROW_SEPARATOR } from "@/lib/ids";
import { compileFilterOrThrow } from "@/lib/destinations/destination-input";
import type { FilterMatch } from "@/lib/destinations/filter";
import { filterInputOf } from "@/lib/destinations/route-request";
import { searchGate } from "./search-gate";

/** How many of an endpoint's newest stored requests a preview matches the filter against. */
export const PREVIEW_REQUESTS = 50;
/** Body bytes a preview reads at most (the newest request always): 50 bodies of 25 MiB would be a denial of service. */
export const PREVIEW_MAX_BYTES = 16 * 1024 * 1024;
/** Body bytes read per statement, so what sits in memory at once stays small (one body above it alone). */
const PREVIEW_CHUNK_BYTES = 4 * 1024 * 1024;

export interface FilterPreview {
  /** The newest stored requests of the endpoint, up to PREVIEW_REQUESTS. */
  considered: number;
  /** Of those, the ones matched against the filter (fewer when PREVIEW_MAX_BYTES stopped the reading). */
  examined: number;
  /** The examined requests the filter matches, newest first: what a delivery list shows of them, never a body. */
  matched: Array<{ id: string; eventType: string | null; receivedAt: string }>;
}

/**
 * Which of endpoint `endpointId`'s newest PREVIEW_REQUESTS stored requests (ctx's organization's) `filter` would
 * hand to a destination, as ingest would (filterInputOf; the ingest URL's path stands for the URL, whose query is
 * not kept). An invalid filter → 400 invalid_filter naming its path, as saving it would. Reads nothing but the
 * request rows (a request is its row whose id has no separator, lib/ids.ts) and, a few at a time, their payloads.
 */
export async function previewFilter({ ctx, input }: { ctx: Ctx; input: { endpointId: string; filter: unknown } }): Promise<FilterPreview> {
  const match = compileFilterOrThrow(input.filter);
  // Up to 16 MiB of bodies read and matched: taken in turn with the organization's searches (search-gate.ts), so
  // one organization's previews cannot hold the pool the dashboard and the API share.
  return searchGate().run(ctx.organizationId, () => matchNewest(ctx, input.endpointId, match));
}

async function matchNewest(ctx: Ctx, endpointId: string, match: FilterMatch): Promise<FilterPreview> {
  const [endpoint] = await ctx.db
    .select({ id: endpoints.id })
    .from(endpoints)
    .where(and(eq(endpoints.id, endpointId), eq(endpoints.organizationId, ctx.organizationId)));
  if (!endpoint) throw new NotFoundError("Endpoint");
  // The organization's delivery id floor (lib/storage/delivery-id-floor.ts, which imports this folder): the walk
  // plans only its weeks' partitions.
  const [organization] = await ctx.db.select({ floor: organizations.deliveryIdFloor }).from(organizations).where(eq(organizations.id, ctx.organizationId));
  const requests = await ctx.db
    .select({ id: deliveries.id, eventType: deliveries.eventType, receivedAt: deliveries.receivedAt, sizeBytes: deliveries.sizeBytes })
    .from(deliveries)
    .where(
      and(
        eq(deliveries.organizationId, ctx.organizationId),
        eq(deliveries.endpointId, endpoint.id),
        gte(deliveries.id, organization?.floor ?? ""),
        sql`strpos(${deliveries.id}, ${REQUEST_ROW_SEPARATOR}) = 0`,
      ),
    )
    // As deliveries_endpoint_received_idx is built (NULLS LAST), so the walk stops after PREVIEW_REQUESTS rows.
    .orderBy(sql`${deliveries.receivedAt} desc nulls last`, sql`${deliveries.id} desc nulls last`)
    .limit(PREVIEW_REQUESTS);

  // Newest first, without gaps: the reading stops at the first body that would pass the budget.
  const taken: typeof requests = [];
  let bytes = 0;
  for (const request of requests) {
    if (taken.length > 0 && bytes + request.sizeBytes > PREVIEW_MAX_BYTES) break;
    taken.push(request);
    bytes += request.sizeBytes;
  }
  const matchedIds = new Set<string>();
  let examined = 0;
  for (const chunk of chunksOf(taken, PREVIEW_CHUNK_BYTES)) {
    const payloads = await ctx.db
      .select({ id: deliveryPayloads.deliveryId, headers: deliveryPayloads.headers, body: deliveryPayloads.body })
      .from(deliveryPayloads)
      .where(and(eq(deliveryPayloads.organizationId, ctx.organizationId), inArray(deliveryPayloads.deliveryId, chunk.map((request) => request.id))));
    // A payload gone since (retention) is simply not examined.
    for (const payload of payloads) {
      examined += 1;
      if (match(filterInputOf({ headers: payload.headers, body: payload.body, url: `/in/${endpoint.id}` }))) matchedIds.add(payload.id);
    }
  }
  return {
    considered: requests.length,
    examined,
    matched: taken.filter((request) => matchedIds.has(request.id)).map((request) => ({ id: request.id, eventType: request.eventType, receivedAt: request.receivedAt.toISOString() })),
  };
}

/** Consecutive runs of requests whose bodies add up to `bytes` at most (a bigger one alone). */
function chunksOf<T extends { sizeBytes: number }>(items: readonly T[], bytes: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    if (current.length > 0 && size + item.sizeBytes > bytes) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += item.sizeBytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}
