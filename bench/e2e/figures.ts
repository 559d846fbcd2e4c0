// bench/e2e's phases and the figures drawn from them, shared by its report (run.ts) and the naive
// comparison (naive-ratios.ts).
import type { CpuUse } from "../support/cpu";
import type { OpenLoopResult } from "../support/open-loop";

export interface WalUse { bytes: number; checkpoints: number }
export type Loaded = OpenLoopResult & { cpuSeconds: number };

export interface Phase {
  label: string;
  /** Which implementation took the load: the product, or the naive floor (bench/naive). */
  of: "product" | "naive";
  rate: number;
  load: Loaded;
  cpu: CpuUse;
  delivered: number;
  /** WAL bytes the server wrote over the phase, and checkpoints it began (both server-wide). */
  wal: WalUse;
  /** Seconds from the last request's due time to the last acknowledged delivery's arrival. */
  lastDeliveryAfterEnd: number | null;
  sendToDestination: { p50: number; p99: number; max: number };
}

/** Acknowledged webhooks per second, from the first request's due time to the last answer. */
export const achieved = (phase: Phase) => phase.load.ok / ((phase.load.lastAnswerAt - phase.load.firstDueAt) / 1000);
export const micros = (cpuSeconds: number, phase: Phase) => (cpuSeconds * 1e6) / Math.max(1, phase.load.ok);
export const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : "—");
export const failures = (load: Loaded) => Object.entries(load.failures).map(([why, n]) => `${n}× ${why}`).join(", ") || "0";
/** Every acknowledged webhook delivered, the last within `seconds` of the last send's due time. */
export const current = (phase: Phase, seconds: number) =>
  phase.delivered === phase.load.ok && phase.lastDeliveryAfterEnd !== null && phase.lastDeliveryAfterEnd <= seconds;
