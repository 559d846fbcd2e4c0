// SSRF guard: a tenant's destination must not reach our own network. Checked when an endpoint is
// saved and again at connect time (DNS can change), unless INBOX_ALLOW_PRIVATE_DESTINATIONS=true.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { promises as dns } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { ValidationError } from "@/lib/errors";
import { assertNotOwnAddress, isLocalAddress } from "./own-address-guard";

const blocked = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], ["10.0.0.0", 8], ["100.64.0.0", 10], ["127.0.0.0", 8], ["169.254.0.0", 16],
  ["172.16.0.0", 12], ["192.0.0.0", 24], ["192.168.0.0", 16], ["198.18.0.0", 15], ["224.0.0.0", 4], ["240.0.0.0", 4],
] as const) blocked.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 128], ["::1", 128], ["fc00::", 7], ["fe80::", 10], ["ff00::", 8], ["64:ff9b::", 96], ["2001:db8::", 32],
] as const) blocked.addSubnet(network, prefix, "ipv6");

export function privateDestinationsAllowed(): boolean {
  return process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS === "true";
}

/** True for loopback, private, link-local, CGNAT, metadata (169.254.169.254, fd00:ec2::254) and similar addresses. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family !== 6) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return blocked.check(mapped[1]!, "ipv4");
  return blocked.check(address, "ipv6");
}

/** Private, or one of this machine's own interface addresses (which may be public). */
const isPrivateOrOwnAddress = (address: string) => isPrivateAddress(address) || isLocalAddress(address);

function refusal(host: string, address: string) {
  return new ValidationError(
    `The destination ${host} resolves to ${address}, a private or internal address; destinations must be public (set INBOX_ALLOW_PRIVATE_DESTINATIONS=true when self-hosting).`,
  );
}

/** Validates a destination URL's form and, unless allowed, that its host resolves only to public addresses. */
export async function assertDestinationAllowed(rawUrl: string): Promise<void> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new ValidationError("destinationUrl must be an absolute http(s) URL.");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ValidationError("destinationUrl must use http or https.");
  await assertNotOwnAddress(url); // whatever INBOX_ALLOW_PRIVATE_DESTINATIONS says
  if (privateDestinationsAllowed()) return;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await dns.lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    throw new ValidationError(`The destination host ${host} does not resolve.`);
  }
  const bad = addresses.find(isPrivateOrOwnAddress);
  if (bad) throw refusal(host, bad);
}

/** A `lookup` for http(s).request that refuses private addresses at connect time. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 0);
    const list = addresses as LookupAddress[];
    const bad = privateDestinationsAllowed() ? undefined : list.find((entry) => isPrivateOrOwnAddress(entry.address));
    if (bad) return callback(refusal(hostname, bad.address), "", 0);
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};
