import { config } from "@/lib/config/config";
import { DEFAULT_DEAD_WINDOW_MINUTES } from "@/lib/destinations/destination-input";
import type { EndpointRow } from "./endpoint-row";
import { readProviderSettings } from "./provider-settings";

export function ingestUrl(endpointId: string): string {
  return `${config().APP_URL}/in/${endpointId}`;
}

/** The public endpoint object (API.md); its destination fields are its default destination's. Secrets never leave here. */
export function presentEndpoint(row: EndpointRow) {
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    ingestUrl: ingestUrl(row.id),
    destinationUrl: row.destinationUrl,
    paused: row.paused,
    maxAttempts: row.maxAttempts,
    retryBaseSeconds: row.retryBaseSeconds,
    timeoutMs: row.timeoutMs,
    maxBodyBytes: row.maxBodyBytes,
    toleranceSeconds: row.toleranceSeconds,
    alertPendingAgeSeconds: row.alertPendingAgeSeconds,
    alertEmail: row.alertEmail,
    alertChannelIds: row.alertChannelIds ?? [],
    deadThreshold: row.deadThreshold,
    deadWindowMinutes: row.deadThreshold === null ? null : (row.deadWindowMinutes ?? DEFAULT_DEAD_WINDOW_MINUTES),
    autoPause: row.autoPauseFailures === null ? null : { consecutiveFailures: row.autoPauseFailures, minutes: row.autoPauseMinutes ?? 0 },
    genericHmac: readProviderSettings(row.provider, row.genericHmac).genericHmac,
    hasSecret: row.secretEncrypted !== null,
    /** Created without the secret its provider issues: what arrives is refused and quarantined until it is set (API.md). */
    awaitingSecret: row.provider !== "none" && row.secretEncrypted === null,
    hasVerifyToken: readProviderSettings(row.provider, row.genericHmac).verifyTokenEncrypted !== null,
    signsOutbound: row.outboundSecretEncrypted !== null,
    previousSecretValidUntil: row.previousSecretValidUntil?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
  };
}
export type EndpointView = ReturnType<typeof presentEndpoint>;
