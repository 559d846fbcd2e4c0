// Where a delivery stands in its series of automatic attempts, and what comes next, for the dashboard:
// "attempt 3 of 8 failed; next in about 16 s; then 5 after about 1 min 4 s, …". The waits are the
// schedule's nominal ones (lib/delivery/engine/retry-schedule.ts without jitter); a destination's Retry-After
// can make them longer.
import { retryDelayMs } from "@/lib/delivery/engine";

export interface RetryPlanInput {
  status: "pending" | "delivering" | "delivered" | "dead" | "filtered";
  /** Automatic attempts since the last replay (the one in flight included): what maxAttempts counts. */
  autoAttemptCount: number;
  nextAttemptAt: Date | null;
  maxAttempts: number;
  retryBaseSeconds: number;
  /** The endpoint is paused: nothing is attempted until it resumes. */
  paused: boolean;
}

export interface RetryPlan {
  maxAttempts: number;
  /** The last attempt made (failed, or in flight when `inFlight`); 0 when none yet in this series. */
  last: number;
  inFlight: boolean;
  /** The next attempt: its number, and when (null: as soon as the worker gets to it, or the endpoint resumes). */
  next: { number: number; at: Date | null } | null;
  /** The attempts after the next one, each about `afterSeconds` after the one before it. */
  later: Array<{ number: number; afterSeconds: number }>;
  paused: boolean;
}

/** Null for a settled delivery (delivered or dead): it has no schedule. */
export function retryPlan(input: RetryPlanInput): RetryPlan | null {
  if (input.status === "delivered" || input.status === "dead" || input.status === "filtered") return null;
  const { maxAttempts, retryBaseSeconds } = input;
  const inFlight = input.status === "delivering";
  const last = Math.min(input.autoAttemptCount, maxAttempts);
  const nextNumber = last + 1;
  const wait = (attempt: number) => Math.round(retryDelayMs({ retryBaseSeconds, retryNumber: attempt - 1, random: () => 0.5 }) / 1000);
  const later: RetryPlan["later"] = [];
  for (let number = inFlight ? nextNumber : nextNumber + 1; number <= maxAttempts; number++) later.push({ number, afterSeconds: wait(number) });
  const next = inFlight || nextNumber > maxAttempts ? null : { number: nextNumber, at: input.paused ? null : input.nextAttemptAt };
  return { maxAttempts, last, inFlight, next, later, paused: input.paused };
}
