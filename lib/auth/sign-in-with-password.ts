import { AuthError } from "next-auth";
import type { FormState } from "./form-action";
import { signIn } from "./auth";
import { safeReturnPath } from "./return-path";
import { SIGN_IN_BUSY_MESSAGE, signInAdmitted } from "./sign-in-gate";
import { SignInRefused } from "./sign-in-refused";

/**
 * The dashboard's sign-in (a server action): through the gate, then Auth.js; a refusal becomes the
 * form's message. Lands on `returnTo` when it is a path of this site, else on the overview. With
 * `invitationToken` the sign-in accepts that invitation and works in its organization (lib/auth/auth.ts).
 */
export async function signInWithPassword(email: string, password: string, returnTo?: unknown, extra: { invitationToken?: string } = {}): Promise<FormState> {
  if (!signInAdmitted()) return { error: SIGN_IN_BUSY_MESSAGE };
  try {
    await signIn("credentials", { email, password, ...extra, redirectTo: safeReturnPath(returnTo) ?? "/overview" });
  } catch (error) {
    if (error instanceof SignInRefused) return { error: error.userMessage };
    if (error instanceof AuthError) return { error: "Wrong email or password." };
    throw error;
  }
  return {};
}
