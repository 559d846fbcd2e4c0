import { passwordProblem } from "@/lib/crypto/password";
import { createOrganizationWithOwner, SignUpInput } from "@/lib/organizations/create-organization-with-owner";
import { countSignUp } from "./throttle/count-sign-up";

/**
 * Sign-up from the dashboard, throttled per source address. Input that would be refused anyway (bad
 * email, weak password) is refused before it counts; what counts is every sign-up that would hash a
 * password and create an account. Without an address (unknown) there is no sign-up limit.
 */
export async function registerAccount(input: SignUpInput, address: string | null) {
  const parsed = SignUpInput.safeParse(input);
  if (parsed.success && !passwordProblem(parsed.data.password)) await countSignUp(address);
  return createOrganizationWithOwner(input);
}
