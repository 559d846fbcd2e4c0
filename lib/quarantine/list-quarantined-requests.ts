import { and, desc, eq, lt } from "drizzle-orm";
import { quarantinedRequests } from "@/db/schema";
import type { Ctx } from "@/lib/context";
import { getEndpointRowOrThrow } from "@/lib/endpoints/get-endpoint-or-throw";
import { ValidationError } from "@/lib/errors";
import { pageLimit } from "@/lib/pagination";

export interface QuarantinedRequestView {
  id: string;
  endpointId: string;
  receivedAt: string;
  /** Why ingest refused it: invalid_signature, missing_signature or timestamp_out_of_tolerance. */
  reason: string;
  /** The request's source address (API.md's `sourceAddress`); `sourceIp` as before. */
  sourceAddress: string | null;
  sourceIp: string | null;
  sizeBytes: number;
  /** The event type and external id it claims, when they could be read without the secret (never trusted). */
  eventType?: string;
  externalId?: string;
}

/** Opaque: base64url of the last row's position in the endpoint's quarantine. */
const encodeCursor = (seq: number) => Buffer.from(`q${seq}`).toString("base64url");

function decodeCursor(cursor: string | null | undefined): number | null {
  if (!cursor) return null;
  const match = cursor.length <= 40 && /^[A-Za-z0-9_-]+$/.test(cursor) ? /^q(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("latin1")) : null;
  if (!match) throw new ValidationError("cursor is not one this API gave out.");
  return Number(match[1]);
}

/**
 * One endpoint's quarantine, newest first, paged ({data, nextCursor}); 404 for another organization's
 * endpoint. Neither headers nor body: they stay sealed. Index: the primary key (endpoint_id, seq).
 */
export async function listQuarantinedRequests({ ctx, input }: { ctx: Ctx; input: { endpointId: string; limit?: unknown; cursor?: string | null } }) {
  const limit = pageLimit(input.limit);
  const before = decodeCursor(input.cursor);
  await getEndpointRowOrThrow({ ctx, input: { id: input.endpointId } });
  const rows = await ctx.db
    .select({
      seq: quarantinedRequests.seq, id: quarantinedRequests.id, endpointId: quarantinedRequests.endpointId, receivedAt: quarantinedRequests.receivedAt,
      reason: quarantinedRequests.reason, sourceIp: quarantinedRequests.sourceIp, sizeBytes: quarantinedRequests.sizeBytes,
      eventType: quarantinedRequests.eventType, externalId: quarantinedRequests.externalId,
    })
    .from(quarantinedRequests)
    .where(and(
      eq(quarantinedRequests.endpointId, input.endpointId),
      eq(quarantinedRequests.organizationId, ctx.organizationId),
      before === null ? undefined : lt(quarantinedRequests.seq, before),
    ))
    .orderBy(desc(quarantinedRequests.seq))
    .limit(limit + 1);
  const page = rows.slice(0, limit);
  return {
    data: page.map(({ seq: _seq, receivedAt, eventType, externalId, ...row }): QuarantinedRequestView => ({
      ...row, sourceAddress: row.sourceIp, receivedAt: receivedAt.toISOString(), ...(eventType ? { eventType } : {}), ...(externalId ? { externalId } : {}),
    })),
    nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.seq) : null,
  };
}
