import { CredentialsSignin } from "next-auth";

/**
 * A sign-in refused before (or instead of) checking the password: over the throttle, or hashing busy;
 * or after it, when the invitation it was to accept can no longer be (used, withdrawn, expired meanwhile).
 * A CredentialsSignin, so Auth.js treats it as an expected answer: its `code` goes in the redirect of
 * POST /api/auth/callback/credentials, and the server action shows `userMessage`.
 */
export class SignInRefused extends CredentialsSignin {
  constructor(
    readonly userMessage: string,
    code: "too_many_attempts" | "busy" | "invitation",
  ) {
    super(userMessage);
    this.code = code;
  }
}
