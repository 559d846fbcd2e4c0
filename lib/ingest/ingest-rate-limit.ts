// Each organization's ingest rate: a token bucket per organization, per web process (a server run as
// N processes lets an organization N times the rate). The map is bounded: past maxOrganizations the
// least recently seen organization is forgotten (its next request finds a full bucket), so requests
// naming many organizations cannot grow memory without limit.
export interface RateLimitOptions {
  /** Tokens added per second: the sustained requests per second an organization may send. */
  ratePerSecond: number;
  /** Bucket size: how many requests may come at once after a quiet spell. */
  burst: number;
  maxOrganizations?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class IngestRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxOrganizations: number;

  constructor(readonly options: RateLimitOptions) {
    this.maxOrganizations = options.maxOrganizations ?? 10_000;
  }

  /** Takes one token for `organizationId`: 0 when the request may go on, else the whole seconds until a token is there (Retry-After). */
  take(organizationId: string, now = performance.now()): number {
    const { ratePerSecond, burst } = this.options;
    const bucket = this.buckets.get(organizationId);
    let tokens = burst;
    if (bucket) {
      tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * ratePerSecond);
      this.buckets.delete(organizationId); // re-inserted below: the map's order is least recently seen first
    } else if (this.buckets.size >= this.maxOrganizations) {
      this.buckets.delete(this.buckets.keys().next().value!);
    }
    const allowed = tokens >= 1;
    this.buckets.set(organizationId, { tokens: allowed ? tokens - 1 : tokens, at: now });
    return allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / ratePerSecond));
  }

  get size(): number {
    return this.buckets.size;
  }
}
