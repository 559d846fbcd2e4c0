import { passwordProblem } from "@/lib/crypto/password";
import { clientAddress, throttleAddress } from "@/lib/http/client-address";
import { acceptInvitationWithNewAccount } from "@/lib/invitations/accept-invitation-with-new-account";
import type { FormState } from "./form-action";
import { signInWithPassword } from "./sign-in-with-password";
import { countSignUp } from "./throttle/count-sign-up";

/**
 * Sign-up through an invitation link (app/invite/[token]): throttled per source address like the
 * sign-up form (a weak password is refused before it counts), then the account joins the inviting
 * organization (lib/invitations/accept-invitation-with-new-account.ts) and is signed in there, its only
 * organization. The request's headers give the address recorded (`ip`) and the one throttled.
 */
export async function signUpThroughInvitation(input: { token: string; password: string }, requestHeaders: Headers): Promise<FormState> {
  if (!passwordProblem(input.password)) await countSignUp(throttleAddress(requestHeaders));
  const { email } = await acceptInvitationWithNewAccount({ ...input, ip: clientAddress(requestHeaders) });
  return signInWithPassword(email, input.password, "/overview");
}
