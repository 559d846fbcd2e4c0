// SSRF guard: a tenant's destination must not reach our own network. Checked when an endpoint is
// saved and again at connect time (DNS can change), unless INBOX_ALLOW_PRIVATE_DESTINATIONS=true.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { promises as dns } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { config } from "@/lib/config/config";
import { ValidationError } from "@/lib/errors";
import { assertNotOwnAddress, isLocalAddress } from "./own-address-guard";
import { specialPurposeReason } from "./special-purpose-address";

export function privateDestinationsAllowed(): boolean {
  return config().INBOX_ALLOW_PRIVATE_DESTINATIONS;
}

/** True for every special-purpose address (lib/net/special-purpose-address.ts): loopback, private, metadata, documentation… */
export function isPrivateAddress(address: string): boolean {
  return specialPurposeReason(address) !== null;
}

/** Why a destination may not connect to `address` (special-purpose, or this machine's own), or null. */
export function forbiddenAddressReason(address: string): string | null {
  return specialPurposeReason(address) ?? (isLocalAddress(address) ? "an address of this server" : null);
}

function refusal(host: string, address: string, reason: string) {
  const resolves = host === address ? `The destination ${host} is` : `The destination ${host} resolves to ${address},`;
  return new ValidationError(
    `${resolves} a private or internal address (${reason}); destinations must be public (set INBOX_ALLOW_PRIVATE_DESTINATIONS=true when self-hosting).`,
  );
}

/** The refusal for an IP-literal host at connect time (Node skips `lookup` for literals), or null. */
export function literalRefusal(host: string): ValidationError | null {
  const bare = host.replace(/^\[|\]$/g, "");
  if (!isIP(bare) || privateDestinationsAllowed()) return null;
  const reason = forbiddenAddressReason(bare);
  return reason ? refusal(bare, bare, reason) : null;
}

/**
 * Validates a destination URL's form and, unless allowed, that its host resolves only to public addresses.
 * `field`: the input field the messages name (an endpoint's destinationUrl, a destination's url).
 */
export async function assertDestinationAllowed(rawUrl: string, field = "destinationUrl"): Promise<void> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ValidationError(`${field} must be an absolute http(s) URL.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ValidationError(`${field} must use http or https.`);
  await assertNotOwnAddress(url, field); // whatever INBOX_ALLOW_PRIVATE_DESTINATIONS says
  if (privateDestinationsAllowed()) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await dns.lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    throw new ValidationError(`The destination host ${host} does not resolve.`);
  }
  for (const address of addresses) {
    const reason = forbiddenAddressReason(address);
    if (reason) throw refusal(host, address, reason);
  }
}

/** A `lookup` for http(s).request that refuses forbidden addresses at connect time. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 0);
    const list = addresses as LookupAddress[];
    if (!privateDestinationsAllowed()) {
      for (const entry of list) {
        const reason = forbiddenAddressReason(entry.address);
        if (reason) return callback(refusal(hostname, entry.address, reason), "", 0);
      }
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};
