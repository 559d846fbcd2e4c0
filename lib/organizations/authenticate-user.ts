import { eq } from "drizzle-orm";
import { getDb } from "@/db";
import { memberships, users } from "@/db/schema";
import { accountBucket, addressBucket, addressKey, minutesText } from "@/lib/auth/throttle/limits";
import { countAttempt } from "@/lib/auth/throttle/count-attempt";
import { uncountAttempt } from "@/lib/auth/throttle/uncount-attempt";
import { hashPassword, PasswordHashingBusyError, verifyPassword } from "@/lib/crypto/password";
import { TooManyRequestsError } from "@/lib/errors";

export interface AuthenticatedUser {
  userId: string;
  email: string;
  name: string | null;
  organizationId: string;
}

// Hashing even when the email is unknown keeps the answer time from telling which emails exist.
let decoyHash: Promise<string> | undefined;
const decoy = () =>
  (decoyHash ??= hashPassword("decoy password that never matches").catch((error) => {
    decoyHash = undefined; // refused while busy: made on a later call instead
    throw error;
  }));

const CONTROL = /[\u0000-\u001f\u007f]/;

/** An email fit to look up and to key the throttle with, or null for input no account can have. */
export function signInEmail(email: unknown): string | null {
  if (typeof email !== "string") return null;
  const normalized = email.trim().toLowerCase();
  return normalized.length > 0 && normalized.length <= 254 && !CONTROL.test(normalized) ? normalized : null;
}

/**
 * Email + password → the user and their (first) organization, or null. Throttled per account and per
 * source address (lib/auth/throttle): over a limit it throws TooManyRequestsError without looking at the
 * password, and PasswordHashingBusyError when this process has too many hashes waiting.
 */
export async function authenticateUser(input: { email: unknown; password: unknown; address?: string | null }): Promise<AuthenticatedUser | null> {
  const email = signInEmail(input.email);
  const password = input.password;
  // Nothing any account could match: refused without a query or a hash.
  if (!email || typeof password !== "string" || password.length === 0 || password.length > 1024) return null;
  const address = addressKey(input.address ?? null);
  const buckets = [accountBucket(email), ...(address ? [addressBucket(address)] : [])];
  const refusal = await countAttempt(buckets);
  if (refusal) {
    const retryAfter = minutesText(refusal.retryAfterSeconds);
    throw new TooManyRequestsError("rate_limited", `Too many sign-in attempts; try again in ${retryAfter}.`, Math.ceil(refusal.retryAfterSeconds));
  }
  const [row] = await getDb()
    .select({ id: users.id, email: users.email, name: users.name, passwordHash: users.passwordHash, organizationId: memberships.organizationId })
    .from(users)
    .innerJoin(memberships, eq(memberships.userId, users.id))
    .where(eq(users.email, email))
    .orderBy(memberships.createdAt)
    .limit(1);
  let ok: boolean;
  try {
    ok = await verifyPassword(password, row?.passwordHash ?? (await decoy()));
  } catch (error) {
    // Never checked: the attempt does not count against anyone.
    if (error instanceof PasswordHashingBusyError) await uncountAttempt(buckets.map((b) => b.key));
    throw error;
  }
  if (!row || !ok) return null;
  await uncountAttempt(address ? [addressBucket(address).key] : [], [accountBucket(email).key]);
  return { userId: row.id, email: row.email, name: row.name, organizationId: row.organizationId };
}
