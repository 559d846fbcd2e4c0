// scrypt runs on libuv's thread pool (4 threads by default), which the rest of the process shares (DNS
// lookups, fs, zlib), and each hash takes ~130 ms of a core here. A sign-in storm must not take every
// core and thread from ingest: a few hashes run at once, a short queue waits, and past that the caller
// is refused at once rather than queued behind hundreds.
import { config } from "@/lib/config/config";
import { DomainError } from "@/lib/errors";

/** The process has more password hashes waiting than it will queue: try again shortly. */
export class PasswordHashingBusyError extends DomainError {
  constructor() {
    super("rate_limited", 503, "The server is busy checking passwords; try again in a moment.");
  }
}

// Half the cores (at least one) may hash at once; the queue holds about a second or two of work.
const limits = () => ({ concurrency: config().PASSWORD_HASH_CONCURRENCY, queue: config().PASSWORD_HASH_QUEUE });

let running = 0;
const waiting: Array<() => void> = [];

/** True when a hash asked for now would be refused: callers can refuse before doing any other work. */
export function passwordHashingIsFull(): boolean {
  const { concurrency, queue } = limits();
  return running >= concurrency && waiting.length >= queue;
}

/** Runs `hash` when a hashing slot is free; throws PasswordHashingBusyError at once when the queue is full. */
export async function withPasswordHashingSlot<T>(hash: () => Promise<T>): Promise<T> {
  const { concurrency, queue } = limits();
  if (running >= concurrency) {
    if (waiting.length >= queue) throw new PasswordHashingBusyError();
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else running += 1;
  try {
    return await hash();
  } finally {
    // The slot passes straight to the next waiter, so `running` never drops and rises again in between.
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  }
}
