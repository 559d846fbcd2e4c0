// Password hashing with scrypt (memory-hard, in node:crypto, so no native dependency).
import { randomBytes, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { config } from "@/lib/config/config";
import { scryptInBackground } from "./password-hasher";
import { withPasswordHashingSlot } from "./password-slots";

export { PasswordHashingBusyError, passwordHashingIsFull } from "./password-slots";

const R = 8;
const P = 1;
const KEY_LENGTH = 32;

/** Every hash takes one of the process's few hashing slots (password-slots.ts; may throw PasswordHashingBusyError) and runs in a low-priority thread (password-hasher.ts). */
function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return withPasswordHashingSlot(() => scryptInBackground(password.normalize("NFKC"), salt, KEY_LENGTH, { ...options, maxmem: 256 * (options.r ?? R) * (options.N ?? 0) }));
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const N = 2 ** config().PASSWORD_HASH_COST;
  const hash = await scrypt(password, salt, { N, r: R, p: P });
  return ["scrypt", N, R, P, salt.toString("base64"), hash.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await scrypt(password, Buffer.from(salt, "base64"), { N: Number(N), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** The rule sign-up enforces; returns a message a person can act on, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < 10) return "Use at least 10 characters for the password.";
  if (password.length > 200) return "Use at most 200 characters for the password.";
  if (/^(.)\1*$/.test(password) || /^(?:0123456789|1234567890|password)/i.test(password)) {
    return "That password is too easy to guess; pick another.";
  }
  return null;
}
