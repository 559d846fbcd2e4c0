// How many sign-in and sign-up attempts the throttle allows, and the keys it counts them under.
import { isIPv4, isIPv6 } from "node:net";
import { config } from "@/lib/config/config";
import { UNPARSEABLE_ADDRESS } from "@/lib/http/client-address";

export interface Bucket {
  key: string;
  limit: number;
  windowSeconds: number;
}

const MINUTES = 60;

/** Failed sign-ins per account (email): AUTH_SIGNIN_ACCOUNT_LIMIT per 15 minutes, default 10. */
export const accountBucket = (email: string): Bucket => ({
  key: `account:${email}`,
  limit: config().AUTH_SIGNIN_ACCOUNT_LIMIT,
  windowSeconds: 15 * MINUTES,
});

/** Failed sign-ins per source address: AUTH_SIGNIN_ADDRESS_LIMIT per 15 minutes, default 30. */
export const addressBucket = (address: string): Bucket => ({
  key: `address:${address}`,
  limit: config().AUTH_SIGNIN_ADDRESS_LIMIT,
  windowSeconds: 15 * MINUTES,
});

/** Sign-ups per source address: AUTH_SIGNUP_ADDRESS_LIMIT per hour, default 5. */
export const signUpBucket = (address: string): Bucket => ({
  key: `signup:${address}`,
  limit: config().AUTH_SIGNUP_ADDRESS_LIMIT,
  windowSeconds: 60 * MINUTES,
});

/**
 * An address fit to be part of a key, or null. An IPv6 address counts as its /64, the block one host or
 * home network is given, so cycling through one's own /64 gains nothing. Anything that is not plainly an
 * IPv4 or IPv6 address (a forged header, say) counts as one shared address rather than as none, so it
 * cannot be used to dodge the per-address limit: "unparseable" (lib/http/client-address.ts), or "unknown-form".
 */
export function addressKey(address: string | null): string | null {
  if (!address) return null;
  if (address === UNPARSEABLE_ADDRESS) return UNPARSEABLE_ADDRESS;
  if (isIPv4(address)) return address;
  if (isIPv6(address)) return ipv6Slash64(address);
  return "unknown-form";
}

/** The /64 network of an IPv6 address, e.g. "2001:db8:1:2::/64". */
function ipv6Slash64(address: string): string {
  const [head = "", tail = ""] = address.toLowerCase().replace(/%.*$/, "").split("::");
  const groups = (part: string) => (part ? part.split(":") : []);
  // An embedded IPv4 tail ("::ffff:1.2.3.4") sits in the last 32 bits: beyond the /64 either way.
  const left = groups(head);
  const right = groups(tail).flatMap((group) => (group.includes(".") ? ["0", "0"] : [group]));
  const full = [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${full.slice(0, 4).map((group) => (parseInt(group, 16) || 0).toString(16)).join(":")}::/64`;
}

/** "N minutes" for a person, rounded up, at least 1. */
export function minutesText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return minutes === 1 ? "1 minute" : `${minutes} minutes`;
}
