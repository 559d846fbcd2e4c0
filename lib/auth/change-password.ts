import { getSql } from "@/db";
import { hashPassword, passwordProblem, PasswordHashingBusyError, verifyPassword } from "@/lib/crypto/password";
import { TooManyRequestsError, ValidationError } from "@/lib/errors";
import { countAttempt } from "./throttle/count-attempt";
import { accountBucket, addressBucket, addressKey, minutesText } from "./throttle/limits";
import { uncountAttempt } from "./throttle/uncount-attempt";

export interface ChangePasswordInput {
  userId: string;
  /** The session asking; it stays signed in, the user's other sessions end. */
  sessionId: string;
  currentPassword: string;
  newPassword: string;
  address?: string | null;
}

/**
 * Checks the current password (a wrong one counts as a failed sign-in for the account and address),
 * stores the new one's hash and ends every other session of the user, in one transaction.
 */
export async function changePassword(input: ChangePasswordInput): Promise<void> {
  const problem = passwordProblem(input.newPassword);
  if (problem) throw new ValidationError(problem);
  if (input.currentPassword.length === 0 || input.currentPassword.length > 1024) throw new ValidationError("The current password is wrong.");
  const sql = getSql();
  const [user] = await sql<{ email: string; password_hash: string }[]>`select email, password_hash from users where id = ${input.userId}`;
  if (!user) throw new ValidationError("The current password is wrong.");
  const address = addressKey(input.address ?? null);
  const buckets = [accountBucket(user.email), ...(address ? [addressBucket(address)] : [])];
  const refusal = await countAttempt(buckets);
  if (refusal) {
    throw new TooManyRequestsError("rate_limited", `Too many sign-in attempts; try again in ${minutesText(refusal.retryAfterSeconds)}.`, Math.ceil(refusal.retryAfterSeconds));
  }
  let newHash: string;
  try {
    if (!(await verifyPassword(input.currentPassword, user.password_hash))) throw new ValidationError("The current password is wrong.");
    newHash = await hashPassword(input.newPassword);
  } catch (error) {
    if (error instanceof PasswordHashingBusyError) await uncountAttempt(buckets.map((b) => b.key));
    throw error;
  }
  await uncountAttempt(address ? [addressBucket(address).key] : [], [accountBucket(user.email).key]);
  await sql.begin(async (tx) => {
    // Only if the hash is still the one checked: two changes at once cannot both win.
    const updated = await tx`update users set password_hash = ${newHash} where id = ${input.userId} and password_hash = ${user.password_hash}`;
    if (updated.count === 0) throw new ValidationError("The password was changed meanwhile; sign in again.");
    await tx`delete from sessions where user_id = ${input.userId} and id <> ${input.sessionId}`;
  });
}
