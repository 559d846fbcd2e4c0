// The public destination object (API.md "Destinations"). Its outbound secret never leaves here: only whether
// it signs (`signsOutbound`, as the endpoint object says for its default destination).
import type { destinations } from "@/db/schema";

export type DestinationRow = typeof destinations.$inferSelect;

export function presentDestination(row: DestinationRow) {
  return {
    id: row.id,
    endpointId: row.endpointId,
    name: row.name,
    type: row.type,
    url: row.url,
    default: row.isDefault,
    filter: row.filter ?? null,
    rateLimit: row.ratePerSecond === null ? null : { perSecond: row.ratePerSecond, burst: row.rateBurst ?? 1 },
    orderingKey: row.orderingKey,
    paused: row.paused,
    maxAttempts: row.maxAttempts,
    retryBaseSeconds: row.retryBaseSeconds,
    timeoutMs: row.timeoutMs,
    signsOutbound: row.outboundSecretEncrypted !== null,
    createdAt: row.createdAt.toISOString(),
  };
}
export type DestinationView = ReturnType<typeof presentDestination>;
