import { passwordProblem } from "@/lib/crypto/password";
import { TooManyRequestsError } from "@/lib/errors";
import { createOrganizationWithOwner, SignUpInput } from "@/lib/organizations/create-organization-with-owner";
import { countAttempt } from "./throttle/count-attempt";
import { addressKey, minutesText, signUpBucket } from "./throttle/limits";

/**
 * Sign-up from the dashboard, throttled per source address. Input that would be refused anyway (bad
 * email, weak password) is refused before it counts; what counts is every sign-up that would hash a
 * password and create an account. Without an address (unknown) there is no sign-up limit.
 */
export async function registerAccount(input: SignUpInput, address: string | null) {
  const parsed = SignUpInput.safeParse(input);
  const key = addressKey(address);
  if (parsed.success && !passwordProblem(parsed.data.password) && key) {
    const refusal = await countAttempt([signUpBucket(key)]);
    if (refusal) {
      throw new TooManyRequestsError("rate_limited", `Too many sign-ups from this address; try again in ${minutesText(refusal.retryAfterSeconds)}.`, Math.ceil(refusal.retryAfterSeconds));
    }
  }
  return createOrganizationWithOwner(input);
}
