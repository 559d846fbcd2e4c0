// The quarantine's bounds and rates (README, "Quarantine"), from the configuration (lib/config/schema.ts).
// Rates are per web process, like ORG_INGEST_RATE.
import { config, type Config } from "@/lib/config/config";

export interface QuarantineSettings {
  /** Per endpoint: the newest this many requests are kept. */
  maxRequests: number;
  /** Per endpoint: at most this many sealed bytes (body, headers, URL and 29 bytes of sealing) are kept. */
  maxBytes: number;
  /** Requests kept per second per source address per endpoint, and the burst after a quiet spell. */
  sourceRate: number;
  sourceBurst: number;
  /** Requests kept per second per endpoint, whatever their sources (many addresses, one flood). */
  endpointRate: number;
  endpointBurst: number;
  /** Body bytes kept per second per endpoint after a burst of maxBytes: big bodies cannot make a small rate costly. */
  endpointByteRate: number;
  /** Quarantine writes in flight at once per organization per web process; past it a refused request is only counted. */
  writeConcurrency: number;
  /** All organizations' quarantine writes in flight at once per web process: they use the dashboard/API pool. */
  totalWriteConcurrency: number;
  /** Days a quarantined request is kept (less when its organization's retention is shorter). */
  days: number;
}

export function quarantineSettings(settings: Config = config()): QuarantineSettings {
  return {
    maxRequests: settings.QUARANTINE_MAX_REQUESTS,
    maxBytes: settings.QUARANTINE_MAX_BYTES,
    sourceRate: settings.QUARANTINE_SOURCE_RATE,
    sourceBurst: settings.QUARANTINE_SOURCE_BURST,
    endpointRate: settings.QUARANTINE_ENDPOINT_RATE,
    endpointBurst: settings.QUARANTINE_ENDPOINT_BURST,
    endpointByteRate: settings.QUARANTINE_ENDPOINT_BYTE_RATE,
    writeConcurrency: settings.QUARANTINE_WRITE_CONCURRENCY,
    totalWriteConcurrency: settings.QUARANTINE_TOTAL_WRITE_CONCURRENCY,
    days: settings.QUARANTINE_DAYS,
  };
}
