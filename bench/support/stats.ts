// Percentiles and medians for the benches' figures.

/** The p-th percentile of ascending `sorted` (nearest rank); NaN when empty. */
export const percentile = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;

export const median = (values: readonly number[]): number => percentile([...values].sort((a, b) => a - b), 50);

export function summarize(values: readonly number[]): { p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? NaN };
}

/** Wall-clock milliseconds with sub-millisecond precision, comparable between processes on one machine. */
export const epochNow = (): number => performance.timeOrigin + performance.now();
