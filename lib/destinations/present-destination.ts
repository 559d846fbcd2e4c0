// The public destination object (API.md "Destinations"). Its outbound secret never leaves here: only whether
// it signs (`signsOutbound`, as the endpoint object says for its default destination).
import type { destinations } from "@/db/schema";
import { DEFAULT_DEAD_WINDOW_MINUTES } from "./destination-input";

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
    alertChannelIds: row.alertChannelIds ?? [],
    /** Its own pending-age alert; null: its endpoint's alertPendingAgeSeconds. */
    alertPendingAgeSeconds: row.alertPendingAgeSeconds,
    deadThreshold: row.deadThreshold,
    deadWindowMinutes: row.deadThreshold === null ? null : (row.deadWindowMinutes ?? DEFAULT_DEAD_WINDOW_MINUTES),
    autoPause: row.autoPauseFailures === null ? null : { consecutiveFailures: row.autoPauseFailures, minutes: row.autoPauseMinutes ?? 0 },
    /** Set while the circuit breaker holds it paused: after how many failed attempts in a row, since when. */
    autoPaused: row.autoPausedAt === null ? null : { at: row.autoPausedAt.toISOString(), consecutiveFailures: row.consecutiveFailures, failingSince: row.failingSince?.toISOString() ?? null },
    createdAt: row.createdAt.toISOString(),
  };
}
export type DestinationView = ReturnType<typeof presentDestination>;
