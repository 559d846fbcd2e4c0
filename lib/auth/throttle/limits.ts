// How many sign-in and sign-up attempts the throttle allows, and the keys it counts them under.
import { positiveIntegerEnv } from "@/lib/env-number";

export interface Bucket {
  key: string;
  limit: number;
  windowSeconds: number;
}

const MINUTES = 60;

/** Failed sign-ins per account (email): AUTH_SIGNIN_ACCOUNT_LIMIT per 15 minutes, default 10. */
export const accountBucket = (email: string): Bucket => ({
  key: `account:${email}`,
  limit: positiveIntegerEnv(process.env.AUTH_SIGNIN_ACCOUNT_LIMIT, 10),
  windowSeconds: 15 * MINUTES,
});

/** Failed sign-ins per source address: AUTH_SIGNIN_ADDRESS_LIMIT per 15 minutes, default 30. */
export const addressBucket = (address: string): Bucket => ({
  key: `address:${address}`,
  limit: positiveIntegerEnv(process.env.AUTH_SIGNIN_ADDRESS_LIMIT, 30),
  windowSeconds: 15 * MINUTES,
});

/** Sign-ups per source address: AUTH_SIGNUP_ADDRESS_LIMIT per hour, default 5. */
export const signUpBucket = (address: string): Bucket => ({
  key: `signup:${address}`,
  limit: positiveIntegerEnv(process.env.AUTH_SIGNUP_ADDRESS_LIMIT, 5),
  windowSeconds: 60 * MINUTES,
});

/**
 * An address fit to be part of a key, or null. Anything that is not plainly an IPv4 or IPv6 address
 * (a forged header, say) counts as one shared "unknown-form" address rather than as none, so it cannot
 * be used to dodge the per-address limit.
 */
export function addressKey(address: string | null): string | null {
  if (!address) return null;
  return /^[0-9A-Fa-f:.]{2,45}$/.test(address) ? address.toLowerCase() : "unknown-form";
}

/** "N minutes" for a person, rounded up, at least 1. */
export function minutesText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}
