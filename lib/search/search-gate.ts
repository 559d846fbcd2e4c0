// Searches in flight in this web process, per organization and in all. A search can take seconds (a rare
// short q in a big history tests the organization's bodies one by one, up to DATABASE_STATEMENT_TIMEOUT_MS)
// and holds a connection of the dashboard/API pool meanwhile: uncapped, one organization's ten searches at
// once held all ten connections, and every other organization's pages and API calls waited behind them.
// A search over its organization's share waits here, holding no connection, and organizations waiting take
// turns; past a short queue it is refused (429), so a client firing searches in a loop only slows itself.
import { config, type Config } from "@/lib/config/config";
import { TooManyRequestsError } from "@/lib/errors";

export interface SearchGateSettings {
  /** Searches of one organization running at once (SEARCH_CONCURRENCY). */
  perOrganization: number;
  /** Searches of all organizations running at once (SEARCH_TOTAL_CONCURRENCY): the rest of the pool stays for pages and the API. */
  total: number;
  /** Searches of one organization waiting for a turn (SEARCH_QUEUE); one more is refused. */
  queuePerOrganization: number;
}

export function searchGateSettings(settings: Config = config()): SearchGateSettings {
  return {
    perOrganization: settings.SEARCH_CONCURRENCY,
    total: settings.SEARCH_TOTAL_CONCURRENCY,
    queuePerOrganization: settings.SEARCH_QUEUE,
  };
}

export class SearchGate {
  private readonly running = new Map<string, number>();
  private runningTotal = 0;
  /** Organizations with searches waiting, in turn order (a Map keeps insertion order). */
  private readonly waiting = new Map<string, Array<() => void>>();

  constructor(readonly settings: SearchGateSettings) {}

  /** Runs `search` once the organization has a turn; 429 when too many of its searches already wait. */
  async run<T>(organizationId: string, search: () => Promise<T>): Promise<T> {
    await this.turn(organizationId);
    try {
      return await search();
    } finally {
      this.leave(organizationId);
    }
  }

  private turn(organizationId: string): Promise<void> {
    if (!this.waiting.has(organizationId) && this.mayStart(organizationId)) {
      this.start(organizationId);
      return Promise.resolve();
    }
    const queue = this.waiting.get(organizationId) ?? [];
    if (queue.length >= this.settings.queuePerOrganization) {
      throw new TooManyRequestsError("too_many_searches", "Too many searches of this organization are running; retry in a moment.", 1);
    }
    this.waiting.set(organizationId, queue);
    return new Promise((resolve) => queue.push(resolve));
  }

  private mayStart(organizationId: string): boolean {
    return (this.running.get(organizationId) ?? 0) < this.settings.perOrganization && this.runningTotal < this.settings.total;
  }

  private start(organizationId: string): void {
    this.running.set(organizationId, (this.running.get(organizationId) ?? 0) + 1);
    this.runningTotal++;
  }

  private leave(organizationId: string): void {
    const left = (this.running.get(organizationId) ?? 1) - 1;
    if (left > 0) this.running.set(organizationId, left);
    else this.running.delete(organizationId);
    this.runningTotal--;
    // The first organization in line that may start goes, then to the back of the line.
    for (const next of [...this.waiting.keys()]) {
      if (this.runningTotal >= this.settings.total) return;
      if (!this.mayStart(next)) continue;
      const queue = this.waiting.get(next)!;
      this.waiting.delete(next);
      if (queue.length > 1) this.waiting.set(next, queue);
      this.start(next);
      queue.shift()!();
    }
  }
}

let gate: SearchGate | undefined;

/** This process's gate, made again when its settings change (tests change them). */
export function searchGate(): SearchGate {
  const settings = searchGateSettings();
  if (!gate || JSON.stringify(gate.settings) !== JSON.stringify(settings)) gate = new SearchGate(settings);
  return gate;
}
