// The benches' destination: answers 200 at once and keeps, per x-inbox-delivery-id, when it first
// arrived and when the load generator sent it (its `bench-sent-at` header, which the relay passes on
// with the provider's other headers), for send→destination latency.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { epochNow } from "./stats";

export const SENT_AT_HEADER = "bench-sent-at";

export interface Arrival {
  /** epochNow() at arrival. */
  at: number;
  /** epochNow() when the load generator sent the webhook; null when it did not say. */
  sentAt: number | null;
}

export interface BenchDestination {
  url: string;
  arrivals: Map<string, Arrival>;
  /** Deliveries that arrived at one destination more than once (at-least-once: a retry after a lost answer, a re-run job). */
  repeats(): number;
  /** Resolves with the arrival of `id` (one waiter at a time). */
  arrivalOf(id: string): Promise<Arrival>;
  close(): Promise<void>;
}

export async function startDestination(port = 0): Promise<BenchDestination> {
  const arrivals = new Map<string, Arrival>();
  const rows = new Set<string>();
  let repeats = 0;
  let waiter: { id: string; resolve: (arrival: Arrival) => void } | undefined;
  const server = http.createServer((req, res) => {
    const id = String(req.headers["x-inbox-delivery-id"]);
    const sentAt = Number(req.headers[SENT_AT_HEADER]);
    const arrival = { at: epochNow(), sentAt: Number.isFinite(sentAt) && sentAt > 0 ? sentAt : null };
    // A repeat is the same delivery to the same destination: a fan-out's destinations share the request's id.
    const row = `${id} ${String(req.headers["x-inbox-destination-id"])}`;
    if (rows.has(row)) repeats++;
    else rows.add(row);
    if (!arrivals.has(id)) arrivals.set(id, arrival);
    req.resume();
    req.on("end", () => res.end("ok"));
    if (waiter?.id === id) waiter.resolve(arrival);
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    repeats: () => repeats,
    arrivalOf: (id) => new Promise((resolve) => (waiter = { id, resolve })),
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
