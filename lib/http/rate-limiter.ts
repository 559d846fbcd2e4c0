// Token buckets per key, per web process: each organization's ingest rate (lib/ingest/ingest-limits.ts), and
// the quarantine's and sign-in's gates. For ingest, a bucket per organization (a server run as
// N processes lets an organization N times the rate). The map is bounded: past maxOrganizations the
// least recently seen organization is forgotten (its next request finds a full bucket), so requests
// naming many organizations cannot grow memory without limit. A body counts as one request per
// bytesPerRequest bytes (rounded up): a big body costs the database, the search indexer and the delivery
// as much as several small requests, so an organization sending big ones reaches its rate sooner, and
// its flood of them slows no one else.
export interface RateLimitOptions {
  /** Tokens added per second: the sustained requests per second an organization may send. */
  ratePerSecond: number;
  /** Bucket size: how many requests may come at once after a quiet spell. */
  burst: number;
  /** A body counts as one request per this many bytes, rounded up (default: every body counts as one). */
  bytesPerRequest?: number;
  maxOrganizations?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxOrganizations: number;

  constructor(readonly options: RateLimitOptions) {
    this.maxOrganizations = options.maxOrganizations ?? 10_000;
  }

  /** Takes one token for `organizationId`: 0 when the request may go on, else the whole seconds until a token is there (Retry-After). */
  take(organizationId: string, now = performance.now()): number {
    const tokens = this.tokensNow(organizationId, now);
    const allowed = tokens >= 1;
    this.buckets.set(organizationId, { tokens: allowed ? tokens - 1 : tokens, at: now });
    return allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.options.ratePerSecond));
  }

  /**
   * Charges an admitted request's body beyond the one request `take` counted: ceil(bytes / bytesPerRequest) − 1
   * more. The bucket may go below zero; the organization's next requests wait until it is paid back.
   */
  chargeBody(organizationId: string, bytes: number, now = performance.now()): void {
    const { bytesPerRequest } = this.options;
    const extra = bytesPerRequest ? Math.ceil(bytes / bytesPerRequest) - 1 : 0;
    if (extra <= 0) return;
    this.buckets.set(organizationId, { tokens: this.tokensNow(organizationId, now) - extra, at: now });
  }

  /** The bucket's tokens at `now`, refilled since it was last seen; it is taken out of the map, to be set again. */
  private tokensNow(organizationId: string, now: number): number {
    const { ratePerSecond, burst } = this.options;
    const bucket = this.buckets.get(organizationId);
    if (bucket) {
      this.buckets.delete(organizationId); // set again by the caller: the map's order is least recently seen first
      return Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * ratePerSecond);
    }
    if (this.buckets.size >= this.maxOrganizations) this.buckets.delete(this.buckets.keys().next().value!);
    return burst;
  }

  get size(): number {
    return this.buckets.size;
  }
}
