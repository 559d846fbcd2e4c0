// The quarantine's bounds and rates (README, "Quarantine"), from the environment. Rates are per web
// process, like ORG_INGEST_RATE.
import { positiveIntegerEnv, positiveNumberEnv } from "@/lib/env-number";

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

export function quarantineSettings(env: NodeJS.ProcessEnv = process.env): QuarantineSettings {
  return {
    maxRequests: positiveIntegerEnv(env.QUARANTINE_MAX_REQUESTS, 1_000),
    maxBytes: positiveIntegerEnv(env.QUARANTINE_MAX_BYTES, 10 * 1_048_576),
    sourceRate: positiveNumberEnv(env.QUARANTINE_SOURCE_RATE, 1),
    sourceBurst: positiveNumberEnv(env.QUARANTINE_SOURCE_BURST, 20),
    endpointRate: positiveNumberEnv(env.QUARANTINE_ENDPOINT_RATE, 10),
    endpointBurst: positiveNumberEnv(env.QUARANTINE_ENDPOINT_BURST, 100),
    endpointByteRate: positiveNumberEnv(env.QUARANTINE_ENDPOINT_BYTE_RATE, 262_144),
    writeConcurrency: positiveIntegerEnv(env.QUARANTINE_WRITE_CONCURRENCY, 2),
    totalWriteConcurrency: positiveIntegerEnv(env.QUARANTINE_TOTAL_WRITE_CONCURRENCY, 8),
    days: positiveIntegerEnv(env.QUARANTINE_DAYS, 7),
  };
}
