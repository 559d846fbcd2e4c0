// A request over its organization's rate is answered 429 after a pause, not at once. A sender that
// hammers on many connections then sends a few requests a second per connection instead of as many
// as the web server can refuse: every refusal still costs Next.js most of a request's CPU (~0.7 ms),
// and a flood of instant refusals would take the event loop from every other organization's
// requests. Pauses are bounded per organization and in all (a request past the bound is refused at
// once), so a sender with thousands of connections cannot make the process hold thousands of them.
export interface RefusalPacerOptions {
  /** How long a refusal waits. */
  delayMs: number;
  maxPerOrganization: number;
  maxTotal: number;
}

export class RefusalPacer {
  private readonly waiting = new Map<string, number>();
  private total = 0;

  constructor(readonly options: RefusalPacerOptions) {}

  /** Resolves when `organizationId`'s refusal may be sent: after the pause, or at once past the bounds. */
  async pause(organizationId: string): Promise<void> {
    const mine = this.waiting.get(organizationId) ?? 0;
    if (mine >= this.options.maxPerOrganization || this.total >= this.options.maxTotal) return;
    this.waiting.set(organizationId, mine + 1);
    this.total++;
    try {
      await new Promise((resolve) => setTimeout(resolve, this.options.delayMs));
    } finally {
      const left = (this.waiting.get(organizationId) ?? 1) - 1;
      if (left > 0) this.waiting.set(organizationId, left);
      else this.waiting.delete(organizationId);
      this.total--;
    }
  }

  waitingFor(organizationId?: string): number {
    return organizationId === undefined ? this.total : (this.waiting.get(organizationId) ?? 0);
  }
}
