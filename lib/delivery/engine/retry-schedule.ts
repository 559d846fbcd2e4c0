// When to try a delivery again (API.md "What a destination receives"). Pure: the clock and the
// randomness come in as arguments, so the schedule is unit-tested without waiting. The cap comes
// from the environment unless given (DELIVERY_RETRY_MAX_DELAY_SECONDS; tests shorten it).
import { retryMaxDelayMs } from "./settings";

/** The longest wait between two automatic attempts by default, before the destination's Retry-After. */
export const MAX_RETRY_DELAY_MS = 60 * 60 * 1000;
/** A Retry-After further away than this is treated as this (a bad header must not park a delivery for ever). */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
export const RETRY_JITTER = 0.2;

/**
 * The wait before retry number `retryNumber` (1 = the retry after the first attempt):
 * retryBaseSeconds × 4^(n−1), capped at `maxDelayMs` (default: DELIVERY_RETRY_MAX_DELAY_SECONDS, one
 * hour when unset), ±20 % jitter (still within the cap), and never less than `retryAfterMs` (the
 * destination's Retry-After, itself capped at a day).
 * `random` returns a number in [0, 1), like Math.random.
 */
export function retryDelayMs(input: {
  retryBaseSeconds: number;
  retryNumber: number;
  retryAfterMs?: number | null;
  random?: () => number;
  maxDelayMs?: number;
}): number {
  const { retryBaseSeconds, retryNumber } = input;
  const maxDelayMs = input.maxDelayMs ?? retryMaxDelayMs();
  const random = input.random ?? Math.random;
  const exponent = Math.max(0, Math.floor(retryNumber) - 1);
  // 4^n overflows to Infinity long before it matters; Math.min handles that.
  const nominal = Math.min(maxDelayMs, retryBaseSeconds * 1000 * 4 ** exponent);
  const jitter = 1 - RETRY_JITTER + 2 * RETRY_JITTER * random();
  const delay = Math.min(maxDelayMs, Math.round(nominal * jitter));
  const retryAfter = input.retryAfterMs ? Math.min(MAX_RETRY_AFTER_MS, Math.max(0, input.retryAfterMs)) : 0;
  return Math.max(delay, retryAfter);
}

/**
 * Reads a Retry-After header: delay-seconds (`120`) or an HTTP-date (`Wed, 21 Oct 2015 07:28:00 GMT`),
 * relative to `now`. Null when absent or unreadable; 0 for a date in the past.
 */
export function parseRetryAfterMs(value: string | string[] | null | undefined, now: Date): number | null {
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!raw) return null;
  if (/^\d+$/.test(raw)) {
    const seconds = Number(raw);
    return Number.isSafeInteger(seconds) ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : MAX_RETRY_AFTER_MS;
  }
  // An HTTP-date always names the weekday or month in letters; plain numbers were handled above, and
  // Date.parse would read odd strings such as "1.5" as dates.
  if (!/[A-Za-z]{3}/.test(raw)) return null;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}
