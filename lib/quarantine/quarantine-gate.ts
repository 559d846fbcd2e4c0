// Which refused requests the quarantine keeps, decided in memory before any work: a token bucket per
// source address per endpoint, one of requests and one of bytes per endpoint, and a cap on writes in
// flight per organization in this process (one tenant's flood over many endpoints cannot take the
// writes another tenant's refused requests need) under a ceiling for all of them (the writes share the
// dashboard/API pool). What is
// turned away is only counted, and the count rides along with the endpoint's next kept request
// (quarantine_heads.not_kept), so an unsigned flood costs a map lookup per request and no statement.
import { RateLimiter } from "@/lib/http/rate-limiter";
import { processSingleton } from "@/lib/runtime/process-singleton";
import { quarantineSettings, type QuarantineSettings } from "./quarantine-settings";

const MAX_TALLIES = 10_000;

export class QuarantineGate {
  private readonly bySource: RateLimiter;
  private readonly byEndpoint: RateLimiter;
  private readonly bytes = new Map<string, { tokens: number; at: number }>();
  private readonly notKept = new Map<string, number>();
  /** Writes in flight by organization; an organization with none has no entry. */
  private readonly inFlight = new Map<string, number>();
  private totalInFlight = 0;

  constructor(readonly settings: QuarantineSettings) {
    this.bySource = new RateLimiter({ ratePerSecond: settings.sourceRate, burst: settings.sourceBurst, maxOrganizations: 20_000 });
    this.byEndpoint = new RateLimiter({ ratePerSecond: settings.endpointRate, burst: settings.endpointBurst });
  }

  /** A pass to keep one request (with the endpoint's untold count of requests not kept), or null: counted only. */
  admit(endpoint: { id: string; organizationId: string }, sourceIp: string | null, sizeBytes: number, now = performance.now()): { notKept: number; done: () => void } | null {
    const { id: endpointId, organizationId } = endpoint;
    const writing = this.inFlight.get(organizationId) ?? 0;
    const admitted =
      writing < this.settings.writeConcurrency &&
      this.totalInFlight < this.settings.totalWriteConcurrency &&
      sizeBytes <= this.settings.maxBytes &&
      this.bySource.take(`${endpointId} ${sourceIp ?? "unknown"}`, now) === 0 &&
      this.byEndpoint.take(endpointId, now) === 0 &&
      this.takeBytes(endpointId, sizeBytes, now);
    if (!admitted) {
      this.count(endpointId, 1);
      return null;
    }
    this.inFlight.set(organizationId, writing + 1);
    this.totalInFlight++;
    const notKept = this.notKept.get(endpointId) ?? 0;
    this.notKept.delete(endpointId);
    let released = false;
    return {
      notKept,
      done: () => {
        if (released) return;
        released = true;
        this.totalInFlight--;
        const left = (this.inFlight.get(organizationId) ?? 1) - 1;
        if (left > 0) this.inFlight.set(organizationId, left);
        else this.inFlight.delete(organizationId);
      },
    };
  }

  /** A bucket of body bytes per endpoint: endpointByteRate a second, holding up to maxBytes. */
  private takeBytes(endpointId: string, sizeBytes: number, now = performance.now()): boolean {
    const { endpointByteRate, maxBytes } = this.settings;
    const bucket = this.bytes.get(endpointId);
    if (!bucket && this.bytes.size >= MAX_TALLIES) this.bytes.clear(); // bounded; a forgotten endpoint starts full
    const tokens = bucket ? Math.min(maxBytes, bucket.tokens + ((now - bucket.at) / 1000) * endpointByteRate) : maxBytes;
    const allowed = tokens >= sizeBytes;
    this.bytes.set(endpointId, { tokens: allowed ? tokens - sizeBytes : tokens, at: now });
    return allowed;
  }

  /** Counts requests not kept; given back when a write carrying them failed. */
  count(endpointId: string, n: number): void {
    if (n <= 0) return;
    // Bounded: many endpoints' floods at once lose some counts, never memory.
    if (!this.notKept.has(endpointId) && this.notKept.size >= MAX_TALLIES) return;
    this.notKept.set(endpointId, (this.notKept.get(endpointId) ?? 0) + n);
  }
}

// One per process: Next.js may bundle this module more than once.
let gate: QuarantineGate | undefined;

export function quarantineGate(): QuarantineGate {
  return (gate ??= processSingleton("quarantine gate", () => new QuarantineGate(quarantineSettings())));
}
