// The address a request came from, for refused-request logs, stored deliveries and throttles.
// X-Forwarded-For is the client's to write, except for the entries our own hops append: the web
// server appends the socket peer (lib/http/peer-address-hook.cjs), and each proxy in
// TRUSTED_PROXIES appends its own peer. So the list is walked from the right, past trusted proxies;
// the first address that is not one is the client. Default: no proxy trusted → the socket peer.
import { BlockList, isIP } from "node:net";
import { canonicalAddress } from "@/lib/net/own-address-guard";

let trusted: { source: string; list: BlockList } | undefined;

/** TRUSTED_PROXIES: comma-separated CIDRs or addresses; an entry that is neither is ignored (logged once). */
function trustedProxies(): BlockList {
  const source = process.env.TRUSTED_PROXIES ?? "";
  if (trusted?.source === source) return trusted.list;
  const list = new BlockList();
  for (const entry of source.split(",").map((part) => part.trim()).filter(Boolean)) {
    const [rawAddress, rawPrefix] = entry.split("/") as [string, string | undefined];
    const address = canonicalAddress(rawAddress);
    const family = isIP(address);
    const prefix = rawPrefix === undefined ? (family === 4 ? 32 : 128) : Number(rawPrefix);
    if (!family || !/^\d+$/.test(rawPrefix ?? "0") || prefix > (family === 4 ? 32 : 128)) {
      console.error(`[client-address] TRUSTED_PROXIES entry "${entry}" is not a CIDR or an IP address; ignored`);
      continue;
    }
    list.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
  }
  trusted = { source, list };
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
  if (process.env.INBOX_PEER_ADDRESS_APPENDED !== "1") return null;
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
  if (process.env.INBOX_PEER_ADDRESS_APPENDED !== "1") return null;
  const { address, unparseable } = forwardedClient(headers);
  return unparseable ? UNPARSEABLE_ADDRESS : address;
}
