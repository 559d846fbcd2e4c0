import { passwordProblem } from "@/lib/crypto/password";
import { countSignUp } from "./throttle/count-sign-up";
import { acceptInvitationWithNewAccount } from "@/lib/invitations/accept-invitation-with-new-account";

/**
 * Sign-up through an invitation link (app/invite/[token]): throttled per source address like the
 * sign-up form (a weak password is refused before it counts), then the account joins the inviting
 * organization (lib/invitations/accept-invitation-with-new-account.ts).
 */
export async function registerInvitedAccount(
  input: { token: string; password: string; name?: string | null },
  source: { ip: string | null; throttle: string | null },
) {
  if (!passwordProblem(input.password)) await countSignUp(source.throttle);
  return acceptInvitationWithNewAccount({ ...input, ip: source.ip });
}

