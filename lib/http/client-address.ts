// The address a request came from, for refused-request logs, stored deliveries and throttles.
// X-Forwarded-For is the client's to write, except for the entries our own hops append: the web
// server appends the socket peer (lib/http/peer-address-hook.cjs), and each proxy in
// TRUSTED_PROXIES appends its own peer. So the list is walked from the right, past trusted proxies;
// the first address that is not one is the client. Default: no proxy trusted → the socket peer.
import { BlockList, isIP } from "node:net";
import { config } from "@/lib/config/config";
import { canonicalAddress } from "@/lib/net/own-address-guard";

let trusted: { entries: readonly string[]; list: BlockList } | undefined;

/** TRUSTED_PROXIES: addresses or CIDRs, each checked by the configuration (a bad one stops start-up). */
function trustedProxies(): BlockList {
  const entries = config().TRUSTED_PROXIES; // the same array while the variable's text is unchanged
  if (trusted?.entries === entries) return trusted.list;
  const list = new BlockList();
  for (const entry of entries) {
    const [rawAddress, rawPrefix] = entry.split("/") as [string, string | undefined];
    const address = canonicalAddress(rawAddress);
    const family = isIP(address);
    const written = rawPrefix === undefined ? (family === 4 ? 32 : 128) : Number(rawPrefix);
    // An IPv4-mapped IPv6 block (::ffff:10.0.0.0/104) is compared as the IPv4 block it holds.
    const prefix = family === 4 && isIP(rawAddress.replace(/^\[|\]$/g, "").replace(/%.*$/, "")) === 6 ? Math.max(0, written - 96) : written;
    list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  trusted = { entries, list };
  return list;
}

/** One X-Forwarded-For entry as an address (IPv4-mapped shown as IPv4; a port or brackets dropped), or null. */
function hopAddress(hop: string): string | null {
  const bare = /^\[([^\]]+)\](?::\d+)?$/.exec(hop)?.[1] ?? /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(hop)?.[1] ?? hop;
  if (!isIP(bare.replace(/%.*$/, ""))) return null;
  return canonicalAddress(bare);
}

/** The client's address from X-Forwarded-For; `unparseable` when a hop we trust passed on something that is no address. */
function forwardedClient(headers: Headers): { address: string | null; unparseable: boolean } {
  const hops = (headers.get("x-forwarded-for") ?? "").split(",").map((hop) => hop.trim()).filter(Boolean);
  const proxies = trustedProxies();
  let address: string | null = null;
  for (let index = hops.length - 1; index >= 0; index--) {
    address = hopAddress(hops[index]!);
    if (!address) return { address: null, unparseable: true };
    if (!proxies.check(address, isIP(address) === 4 ? "ipv4" : "ipv6")) return { address, unparseable: false };
  }
  return { address, unparseable: false }; // every hop is a trusted proxy: the furthest one is all we know
}

/**
 * The client's address, or null when it cannot be known: the server was not started with the peer
 * hook (`next dev`, a bare `next start`), or a hop we trust passed on something that is no address.
 */
export function clientAddress(headers: Headers): string | null {
  if (config().INBOX_PEER_ADDRESS_APPENDED !== "1") return null;
  return forwardedClient(headers).address;
}

/** What every hop that does not parse counts as in a throttle: one shared address, never none. */
export const UNPARSEABLE_ADDRESS = "unparseable";

/**
 * The address a throttle counts a request under: the client's address, or UNPARSEABLE_ADDRESS when a
 * trusted hop passed on something that is no address (so a forged hop cannot dodge a per-address limit);
 * null only when no address can be known at all (no peer hook).
 */
export function throttleAddress(headers: Headers): string | null {
  if (config().INBOX_PEER_ADDRESS_APPENDED !== "1") return null;
  const { address, unparseable } = forwardedClient(headers);
  return unparseable ? UNPARSEABLE_ADDRESS : address;
}
