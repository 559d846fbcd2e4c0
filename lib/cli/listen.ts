// `inbox listen`: webhooks onto a developer's machine through a pull destination (API.md, "Pull destinations and
// `inbox listen`"). It takes the endpoint's deliveries with leases and forwards each, byte for byte with its
// headers, to a local URL; a 2xx is acknowledged, anything else is a failed attempt the server retries. A delivery
// is acknowledged only after the local server answered it, so a listener killed mid-batch loses nothing: what it
// held comes back when its leases end. Needs nothing but Node and the REST API (lib/cli/listen-api.ts).
import { hostname } from "node:os";

/** A delivery as `POST …/pull` hands it out. */
export interface PulledDelivery {
  leaseId: string;
  deliveryId: string;
  attempt: number;
  receivedAt: string;
  eventType: string | null;
  externalId: string | null;
  headers: Record<string, string>;
  body: string;
  bodyEncoding?: "base64" | null;
}

/** What listen needs of the server: the REST API's calls, one method each. */
export interface ListenApi {
  /** The pull destination named `name` on the endpoint (made, or found and resumed with `filter`). */
  openDestination(input: { endpointId: string; name: string; filter: unknown }): Promise<{ id: string; created: boolean }>;
  pull(input: { endpointId: string; destinationId: string; max: number; leaseSeconds: number; waitSeconds: number; signal: AbortSignal }): Promise<PulledDelivery[]>;
  ack(input: { endpointId: string; destinationId: string; leaseIds: string[] }): Promise<void>;
  nack(input: { endpointId: string; destinationId: string; leaseIds: string[] }): Promise<void>;
  pause(input: { endpointId: string; destinationId: string }): Promise<void>;
  remove(input: { endpointId: string; destinationId: string }): Promise<void>;
}

export interface ListenOptions {
  endpointId: string;
  forward: string;
  filter?: unknown;
  /** Keep the destination (paused) on exit, instead of deleting it. */
  keep?: boolean;
  name?: string;
  max?: number;
  leaseSeconds?: number;
  waitSeconds?: number;
  /** Where each line goes (stdout by default). */
  print?: (line: string) => void;
  /** Milliseconds to wait after the server could not be reached: 1 s, doubling to 30 s. */
  retryDelayMs?: (failures: number) => number;
}

export interface ListenSummary {
  forwarded: number;
  succeeded: number;
  failed: number;
}

// Not forwarded: hop-by-hop headers and those the local request sets itself (as the push worker does).
const NOT_FORWARDED = new Set(["host", "content-length", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"]);

export const listenDestinationName = () => `listen-${hostname()}`.slice(0, 100);

const defaultRetryDelay = (failures: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));

function timeOfDay(date: Date): string {
  return date.toISOString().slice(11, 19);
}

/** One line per delivery: time, event type, local status, duration (API.md). */
export function deliveryLine(at: Date, delivery: PulledDelivery, outcome: { status: number | null; error?: string }, ms: number): string {
  const local = outcome.status === null ? `error (${outcome.error})` : String(outcome.status);
  return `${timeOfDay(at)}  ${(delivery.eventType ?? "-").padEnd(28)}  ${local.padEnd(5)}  ${String(ms).padStart(5)} ms  ${delivery.deliveryId}`;
}

/** POSTs one delivery to the local URL as it arrived: its bytes, its headers, and the x-inbox-* ones a push sends. */
async function forwardOne(url: string, destinationId: string, delivery: PulledDelivery): Promise<{ status: number | null; error?: string }> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(delivery.headers)) if (!NOT_FORWARDED.has(name.toLowerCase())) headers.set(name, value);
  headers.set("x-inbox-delivery-id", delivery.deliveryId);
  headers.set("x-inbox-destination-id", destinationId);
  headers.set("x-inbox-attempt", String(delivery.attempt));
  const body = Buffer.from(delivery.body, delivery.bodyEncoding === "base64" ? "base64" : "utf8");
  try {
    const response = await fetch(url, { method: "POST", headers, body, redirect: "manual", signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer().catch(() => undefined);
    return { status: response.status };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { status: null, error: cause ?? (error as Error).message };
  }
}

/**
 * Runs until `stop` is aborted: then it finishes the delivery in hand (forwarded and settled), gives the rest of its
 * batch back (nack), and pauses its destination (or deletes it unless `keep`). Returns the counts.
 */
export async function listen(api: ListenApi, options: ListenOptions, stop: AbortSignal): Promise<ListenSummary> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const retryDelay = options.retryDelayMs ?? defaultRetryDelay;
  const summary: ListenSummary = { forwarded: 0, succeeded: 0, failed: 0 };
  const { endpointId } = options;
  const name = options.name ?? listenDestinationName();
  let destinationId: string | undefined;
  let failures = 0;

  const wait = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    stop.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
  /** Runs `call` until it succeeds or listen is stopped; the server may be restarting. */
  async function persist<T>(what: string, call: () => Promise<T>): Promise<T | undefined> {
    for (;;) {
      try {
        const result = await call();
        if (failures > 0) print(`${timeOfDay(new Date())}  reconnected`);
        failures = 0;
        return result;
      } catch (error) {
        if (stop.aborted) return undefined;
        if (error instanceof ListenError && !error.retryable) throw error;
        failures += 1;
        const delay = retryDelay(failures);
        print(`${timeOfDay(new Date())}  ${what} failed (${(error as Error).message}); trying again in ${Math.round(delay / 1000)} s`);
        await wait(delay);
        if (stop.aborted) return undefined;
      }
    }
  }

  const opened = await persist("opening the destination", () => api.openDestination({ endpointId, name, filter: options.filter ?? null }));
  if (!opened) return summary;
  destinationId = opened.id;
  const lane = { endpointId, destinationId };
  print(`Forwarding ${endpointId} → ${options.forward} through pull destination ${name} (${destinationId}${opened.created ? ", new" : ""}). Ctrl-C to stop.`);

  while (!stop.aborted) {
    const batch = await persist("pulling", () => api.pull({
      ...lane, max: options.max ?? 10, leaseSeconds: options.leaseSeconds ?? 30, waitSeconds: options.waitSeconds ?? 20, signal: stop,
    }));
    if (!batch) break;
    for (let index = 0; index < batch.length; index++) {
      if (stop.aborted) {
        // Not forwarded: back to the server now rather than when their leases end.
        await api.nack({ ...lane, leaseIds: batch.slice(index).map((d) => d.leaseId) }).catch(() => undefined);
        break;
      }
      const delivery = batch[index]!;
      const started = Date.now();
      const outcome = await forwardOne(options.forward, destinationId, delivery);
      const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
      // Settled even while stopping: it was forwarded. An error here leaves the lease to end: retried, never lost.
      await persist(ok ? "acknowledging" : "reporting the failure", () => (ok ? api.ack : api.nack).call(api, { ...lane, leaseIds: [delivery.leaseId] }));
      summary.forwarded += 1;
      summary[ok ? "succeeded" : "failed"] += 1;
      print(deliveryLine(new Date(started), delivery, outcome, Date.now() - started));
    }
  }

  if (options.keep) await api.pause(lane).catch((error) => print(`Could not pause ${destinationId}: ${(error as Error).message}`));
  else await api.remove(lane).catch((error) => print(`Could not delete ${destinationId}: ${(error as Error).message}`));
  print(`${summary.forwarded} forwarded: ${summary.succeeded} succeeded, ${summary.failed} failed. Destination ${destinationId} ${options.keep ? "paused" : "deleted"}.`);
  return summary;
}

/** A refusal from the server: retryable when the server could not serve (5xx, 429), not when it said no (4xx). */
export class ListenError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
  get retryable(): boolean {
    return this.status >= 500 || this.status === 429 || this.status === 408;
  }
}
