// Long polls (a pull's waitSeconds). A waiting pull holds no connection: each web process LISTENs on ONE connection
// (postgres.js keeps it apart from the pool, and listens again after a reconnect) and hands each notice
// (lib/destinations/pull-ready.ts: a destination's id) to the pulls waiting in memory for that destination, which
// then look again. Fair between organizations: each may have PULL_WAITS_PER_ORGANIZATION pulls waiting at once per
// process; past it a pull answers at once with what is ready (pull-deliveries.ts), so one organization's idle polls
// cannot fill the process for others.
import { getSql } from "@/db";
import { PULL_READY_CHANNEL } from "@/lib/destinations/pull-ready";
import { processSingleton } from "@/lib/runtime/process-singleton";

interface Waiting {
  listening: Promise<unknown> | null;
  byDestination: Map<string, Set<() => void>>;
  byOrganization: Map<string, number>;
}

const waiting = processSingleton("pulls waiting for deliveries", (): Waiting => ({ listening: null, byDestination: new Map(), byOrganization: new Map() }));

/** Resolves once this process listens for ready deliveries (the first caller starts it; a failure lets the next try again). */
export function listenForReadyDeliveries(): Promise<unknown> {
  waiting.listening ??= getSql()
    .listen(PULL_READY_CHANNEL, tellWaiting)
    .catch((error: unknown) => {
      waiting.listening = null;
      throw error;
    });
  return waiting.listening;
}

/** Wakes the pulls waiting for the destination (a notice's payload). */
export function tellWaiting(destinationId: string): void {
  for (const tell of [...(waiting.byDestination.get(destinationId) ?? [])]) tell();
}

/** A turn to wait for the organization (give it back with the function returned), or null when it has `cap` waiting already. */
export function takeWaitTurn(organizationId: string, cap: number): (() => void) | null {
  const n = waiting.byOrganization.get(organizationId) ?? 0;
  if (n >= cap) return null;
  waiting.byOrganization.set(organizationId, n + 1);
  let given = false;
  return () => {
    if (given) return;
    given = true;
    const left = (waiting.byOrganization.get(organizationId) ?? 1) - 1;
    if (left > 0) waiting.byOrganization.set(organizationId, left);
    else waiting.byOrganization.delete(organizationId);
  };
}

export interface Watch {
  /** Forget notices so far: call before each look, so a notice during the look is not lost. */
  reset(): void;
  /** Until a notice since the last reset (at once if one came), `ms` pass, or `signal` aborts. */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
  stop(): void;
}

/** Watches for notices about the destination from now on. */
export function watchDestination(destinationId: string): Watch {
  let told = false;
  let wakeUp: (() => void) | null = null;
  const tell = () => {
    told = true;
    wakeUp?.();
  };
  const set = waiting.byDestination.get(destinationId) ?? new Set();
  set.add(tell);
  waiting.byDestination.set(destinationId, set);
  return {
    reset: () => {
      told = false;
    },
    wait: (ms, signal) =>
      new Promise<void>((resolve) => {
        if (told || signal?.aborted) return resolve();
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          wakeUp = null;
          resolve();
        };
        const timer = setTimeout(done, ms);
        signal?.addEventListener("abort", done);
        wakeUp = done;
      }),
    stop: () => {
      set.delete(tell);
      if (set.size === 0 && waiting.byDestination.get(destinationId) === set) waiting.byDestination.delete(destinationId);
    },
  };
}
