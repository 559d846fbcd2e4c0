// How long ingest took to answer 200 for a stored webhook, from the route handler's start to the answer:
// the figure a provider's timeout is set against. Kept in this process (two increments per request, no I/O)
// and one per process (processSingleton), shared by every route bundle of the Next.js server; each process
// reports its own.
import { processSingleton } from "@/lib/runtime/process-singleton";
import { Histogram } from "./histogram";

export const ACK_LATENCY_BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

let histogram: Histogram | undefined;

/** The process's ack latency histogram, in seconds. */
export function ackLatency(): Histogram {
  return (histogram ??= processSingleton("ack latency", () => new Histogram(ACK_LATENCY_BOUNDS)));
}
