import { and, desc, eq } from "drizzle-orm";
import { rejectedRequests } from "@/db/schema";
import type { Ctx } from "@/lib/context";

/** A short title per reason code; the stored message (already written for people) says what to do. */
const REASON_TITLES: Record<string, string> = {
  invalid_signature: "Signature did not match",
  missing_signature: "Unsigned request",
  timestamp_out_of_tolerance: "Timestamp outside the allowed window",
};

export interface RejectedRequestView {
  id: number;
  at: string;
  reason: string;
  reasonTitle: string;
  message: string;
  sourceIp: string | null;
  headerNames: string[];
}

/**
 * The requests ingest refused for one endpoint of ctx's organization, newest first (ingest keeps the
 * newest 100 per endpoint). Another organization's endpoint simply has none. Index: (endpoint_id, at desc).
 */
export async function listRejectedRequests({ ctx, input }: { ctx: Ctx; input: { endpointId: string; limit?: number } }): Promise<RejectedRequestView[]> {
  const limit = Math.min(100, Math.max(1, Math.floor(input.limit ?? 50)));
  const rows = await ctx.db
    .select()
    .from(rejectedRequests)
    .where(and(eq(rejectedRequests.endpointId, input.endpointId), eq(rejectedRequests.organizationId, ctx.organizationId)))
    .orderBy(desc(rejectedRequests.at), desc(rejectedRequests.id))
    .limit(limit);
  return rows.map((row) => ({
    id: row.id,
    at: row.at.toISOString(),
    reason: row.reason,
    reasonTitle: REASON_TITLES[row.reason] ?? row.reason.replaceAll("_", " "),
    message: row.message,
    sourceIp: row.sourceIp,
    headerNames: [...row.headerNames].sort(),
  }));
}
