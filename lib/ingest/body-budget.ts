// The bytes of request bodies a web process holds, from the first byte read until the request is
// answered, have a budget shared fairly between organizations: an organization may hold at most
// budget / (organizations holding bytes + 1), and never less than a floor while the budget has room.
// The "+ 1" keeps a share free for an organization that has nothing in flight yet, so one
// organization's big uploads are refused (429, its own) before anyone else's small request is.
import { TooManyRequestsError } from "@/lib/errors";

export interface BodyBudgetOptions {
  /** Bytes of bodies the process may hold at once. */
  totalBytes: number;
  /** An organization may always hold this much while the total has room (small requests never wait on shares). */
  floorBytes: number;
  /** Seconds a refused sender is told to wait (Retry-After). */
  retryAfterSeconds: number;
}

/** One request's bytes: reserved as they arrive (or up front when declared), released once when it is answered. */
export interface BodyHold {
  /** Reserves `bytes` more, or throws TooManyRequestsError (429) when the organization's share or the budget is used up. */
  add(bytes: number): void;
  release(): void;
}

export class BodyBudget {
  private readonly held = new Map<string, number>();
  private total = 0;

  constructor(readonly options: BodyBudgetOptions) {}

  /** The largest body any request can ever hold: half the budget (what a lone organization may hold). */
  get largestBody(): number {
    return Math.floor(this.options.totalBytes / 2);
  }

  /** What `organizationId` may hold now. */
  shareOf(organizationId: string): number {
    const holding = this.held.size + (this.held.has(organizationId) ? 0 : 1);
    return Math.max(this.options.floorBytes, Math.floor(this.options.totalBytes / (holding + 1)));
  }

  /** Bytes held now, by one organization or by all. */
  heldBy(organizationId?: string): number {
    return organizationId === undefined ? this.total : (this.held.get(organizationId) ?? 0);
  }

  hold(organizationId: string): BodyHold {
    let reserved = 0;
    let released = false;
    return {
      add: (bytes) => {
        if (released) throw new Error("This hold was released.");
        this.reserve(organizationId, bytes);
        reserved += bytes;
      },
      release: () => {
        if (released) return;
        released = true;
        this.free(organizationId, reserved);
      },
    };
  }

  private reserve(organizationId: string, bytes: number): void {
    const mine = this.held.get(organizationId) ?? 0;
    const overShare = mine + bytes > this.shareOf(organizationId);
    if (overShare || this.total + bytes > this.options.totalBytes) {
      const why = overShare ? "your organization's share of this server's" : "this server's";
      throw new TooManyRequestsError("too_many_bytes_in_flight", `Too many bytes in flight: ${why} request-body budget is in use; nothing was kept. Retry later.`, this.options.retryAfterSeconds);
    }
    if (bytes === 0) return;
    this.held.set(organizationId, mine + bytes);
    this.total += bytes;
  }

  private free(organizationId: string, bytes: number): void {
    if (bytes === 0) return;
    const left = (this.held.get(organizationId) ?? 0) - bytes;
    if (left > 0) this.held.set(organizationId, left);
    else this.held.delete(organizationId);
    this.total -= bytes;
  }
}
