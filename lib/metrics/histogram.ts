/** A Prometheus-style histogram kept in this process: cumulative counts per upper bound, sum and count. */
export class Histogram {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    for (let i = 0; i < this.bounds.length; i++) if (value <= this.bounds[i]!) this.counts[i]!++;
    this.sum += value;
    this.count++;
  }

  /** Cumulative: buckets[i] is how many observations were ≤ bounds[i]. */
  snapshot(): { buckets: { le: number; count: number }[]; sum: number; count: number } {
    return { buckets: this.bounds.map((le, i) => ({ le, count: this.counts[i]! })), sum: this.sum, count: this.count };
  }
}
