import { TooManyRequestsError } from "@/lib/errors";
import { countAttempt } from "./count-attempt";
import { addressKey, minutesText, signUpBucket } from "./limits";

/**
 * Counts one sign-up from `address` (a new account, by the sign-up form or through an invitation) and
 * throws 429 past the limit. Without an address (unknown) there is no sign-up limit.
 */
export async function countSignUp(address: string | null): Promise<void> {
  const key = addressKey(address);
  if (!key) return;
  const refusal = await countAttempt([signUpBucket(key)]);
  if (refusal) {
    throw new TooManyRequestsError("rate_limited", `Too many sign-ups from this address; try again in ${minutesText(refusal.retryAfterSeconds)}.`, Math.ceil(refusal.retryAfterSeconds));
  }
}
