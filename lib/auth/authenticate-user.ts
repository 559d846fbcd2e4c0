import { getAuthSql } from "@/db";
import { accountBucket, addressBucket, addressKey, minutesText } from "@/lib/auth/throttle/limits";
import { countAttempt } from "@/lib/auth/throttle/count-attempt";
import { uncountAttempt } from "@/lib/auth/throttle/uncount-attempt";
import { hashPassword, PasswordHashingBusyError, passwordHashingIsFull, verifyPassword } from "@/lib/crypto/password";
import { TooManyRequestsError } from "@/lib/errors";

export interface AuthenticatedUser {
  userId: string;
  email: string;
  name: string | null;
  /** The organization sign-in opens: the one used last, else the first joined; null when they belong to none. */
  organizationId: string | null;
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
function signInEmail(email: unknown): string | null {
  if (typeof email !== "string") return null;
  const normalized = email.trim().toLowerCase();
  return normalized.length > 0 && normalized.length <= 254 && !CONTROL.test(normalized) ? normalized : null;
}

/**
 * Email + password → the user and the organization to open (last used, else first joined; none: null), or null. Throttled per account and per
 * source address (lib/auth/throttle): over a limit it throws TooManyRequestsError without looking at the
 * password, and PasswordHashingBusyError when this process has too many hashes waiting.
 */
export async function authenticateUser(input: { email: unknown; password: unknown; address?: string | null }): Promise<AuthenticatedUser | null> {
  const email = signInEmail(input.email);
  const password = input.password;
  // Nothing any account could match: refused without a query or a hash.
  if (!email || typeof password !== "string" || password.length === 0 || password.length > 1024) return null;
  // A storm meets a full hashing queue: refused before any query, so it costs the process next to nothing.
  if (passwordHashingIsFull()) throw new PasswordHashingBusyError();
  const address = addressKey(input.address ?? null);
  const buckets = [accountBucket(email), ...(address ? [addressBucket(address)] : [])];
  const refusal = await countAttempt(buckets);
  if (refusal) {
    const retryAfter = minutesText(refusal.retryAfterSeconds);
    throw new TooManyRequestsError("rate_limited", `Too many sign-in attempts; try again in ${retryAfter}.`, Math.ceil(refusal.retryAfterSeconds));
  }
  // On sign-in's own pool, like the throttle: a storm waits there, not in the shared pool.
  const [row] = await getAuthSql()<{ id: string; email: string; name: string | null; password_hash: string; organization_id: string | null }[]>`
    select u.id, u.email, u.name, u.password_hash, (
      select m.organization_id from memberships m join organizations o on o.id = m.organization_id and o.deleted_at is null
      where m.user_id = u.id
      order by m.last_used_at desc nulls last, m.created_at, m.organization_id limit 1) as organization_id
    from users u
    where u.email = ${email}`;
  let ok: boolean;
  try {
    ok = await verifyPassword(password, row?.password_hash ?? (await decoy()));
  } catch (error) {
    // Never checked: the attempt does not count against anyone.
    if (error instanceof PasswordHashingBusyError) await uncountAttempt(buckets.map((b) => b.key));
    throw error;
  }
  if (!row || !ok) return null;
  await uncountAttempt(address ? [addressBucket(address).key] : [], [accountBucket(email).key]);
  return { userId: row.id, email: row.email, name: row.name, organizationId: row.organization_id };
}
