// Sign-in's front door in each web process. Auth.js's credentials callback costs the process far more
// than an ingest request does: in bench/sign-in-storm, 300 callbacks over 3 s that Auth.js itself
// refused (a wrong CSRF token: no password hash, no query) raised another organization's ingest p99
// 5–26×. So beyond a few attempts a second, or while password hashing is full, a sign-in is told the
// server is busy before Auth.js runs. People sign in a few times a day; a storm of them is an attack.
import { passwordHashingIsFull, PasswordHashingBusyError } from "@/lib/crypto/password";
import { config } from "@/lib/config/config";
import { RateLimiter } from "@/lib/http/rate-limiter";

// One token bucket for the whole process (the limiter is keyed; one key here).
let bucket: RateLimiter | undefined;
const PROCESS = "sign-in";

function signInBucket(): RateLimiter {
  const { AUTH_SIGNIN_RATE: ratePerSecond, AUTH_SIGNIN_BURST: burst } = config();
  if (bucket?.options.ratePerSecond !== ratePerSecond || bucket.options.burst !== burst) {
    bucket = new RateLimiter({ ratePerSecond, burst, maxOrganizations: 1 });
  }
  return bucket;
}

/** True when a sign-in may go on to Auth.js now; false: answer "busy" at once. */
export function signInAdmitted(): boolean {
  return !passwordHashingIsFull() && signInBucket().take(PROCESS) === 0;
}

/** The message a refused sign-in shows (the same as when hashing itself is full). */
export const SIGN_IN_BUSY_MESSAGE = new PasswordHashingBusyError().message;
