// Which addresses a tenant's destination may not be: every entry of IANA's IPv4 and IPv6
// special-purpose address registries, multicast, what IANA keeps reserved, and the IPv6 forms that
// carry an IPv4 address (mapped, compatible, 6to4) when the IPv4 inside is one of those.
// Our own table rather than ipaddr.js: its range() lacks site-local fec0::/10, 64:ff9b:1::/48,
// ::/96, 3fff::/20 and 5f00::/16, and it does not look inside 6to4 either, so we would need this
// table and byte walk anyway (lib/net/special-purpose-address.test.ts lists each row).
import { isIP } from "node:net";

type Row = readonly [cidr: string, name: string];

export const IPV4_SPECIAL: readonly Row[] = [
  ["0.0.0.0/8", "this network"],
  ["10.0.0.0/8", "private-use"],
  ["100.64.0.0/10", "shared address space (CGNAT)"],
  ["127.0.0.0/8", "loopback"],
  ["169.254.0.0/16", "link-local (cloud metadata)"],
  ["172.16.0.0/12", "private-use"],
  ["192.0.0.0/24", "IETF protocol assignments"],
  ["192.0.2.0/24", "documentation (TEST-NET-1)"],
  ["192.31.196.0/24", "AS112-v4"],
  ["192.52.193.0/24", "AMT"],
  ["192.88.99.0/24", "deprecated 6to4 relay anycast"],
  ["192.168.0.0/16", "private-use"],
  ["192.175.48.0/24", "AS112 direct delegation"],
  ["198.18.0.0/15", "benchmarking"],
  ["198.51.100.0/24", "documentation (TEST-NET-2)"],
  ["203.0.113.0/24", "documentation (TEST-NET-3)"],
  ["224.0.0.0/4", "multicast"],
  ["240.0.0.0/4", "reserved (and broadcast)"],
];

// Most specific first: the first row that matches names the refusal.
export const IPV6_SPECIAL: readonly Row[] = [
  ["::/128", "unspecified"],
  ["::1/128", "loopback"],
  ["64:ff9b::/96", "NAT64 (IPv4/IPv6 translation)"],
  ["64:ff9b:1::/48", "local-use NAT64"],
  ["::ffff:0:0:0/96", "IPv4-translated (SIIT)"],
  ["100::/64", "discard-only"],
  ["100:0:0:1::/64", "dummy prefix"],
  ["2001::/32", "Teredo"],
  ["2001:2::/48", "benchmarking"],
  ["2001:3::/32", "AMT"],
  ["2001:4:112::/48", "AS112-v6"],
  ["2001:10::/28", "deprecated ORCHID"],
  ["2001:20::/28", "ORCHIDv2"],
  ["2001:30::/28", "drone remote ID"],
  ["2001::/23", "IETF protocol assignments"],
  ["2001:db8::/32", "documentation"],
  ["2620:4f:8000::/48", "AS112 direct delegation"],
  ["3fff::/20", "documentation"],
  ["5f00::/16", "SRv6 SIDs"],
  ["fc00::/7", "unique-local"],
  ["fec0::/10", "site-local (deprecated)"],
  ["fe80::/10", "link-local"],
  ["ff00::/8", "multicast"],
];

/** The forms that carry an IPv4 address, checked by the IPv4 inside: [prefix, first byte of the IPv4]. */
const CARRIERS: readonly [cidr: string, name: string, at: number][] = [
  ["::ffff:0:0/96", "IPv4-mapped", 12],
  ["::/96", "IPv4-compatible", 12],
  ["2002::/16", "6to4", 2],
];

const GLOBAL_UNICAST = "2000::/3";

function ipv4Bytes(text: string): number[] {
  return text.split(".").map(Number);
}

/** 16 bytes of a valid IPv6 address (isIP checked first), a trailing dotted quad included. */
function ipv6Bytes(text: string): number[] {
  let rest = text;
  const quad = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(rest);
  if (quad) {
    const [a, b, c, d] = ipv4Bytes(quad[2]!);
    rest = `${quad[1]}${((a! << 8) | b!).toString(16)}:${((c! << 8) | d!).toString(16)}`;
  }
  const groups = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)));
  const [head, tail] = rest.split("::") as [string, string | undefined];
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const words = [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
  return words.flatMap((word) => [word >> 8, word & 255]);
}

function parseCidr(cidr: string): { bytes: number[]; prefix: number } {
  const [address, prefix] = cidr.split("/") as [string, string];
  return { bytes: isIP(address) === 4 ? ipv4Bytes(address) : ipv6Bytes(address), prefix: Number(prefix) };
}

function inPrefix(bytes: number[], cidr: { bytes: number[]; prefix: number }): boolean {
  for (let bit = 0; bit < cidr.prefix; bit += 8) {
    const bits = Math.min(8, cidr.prefix - bit);
    const mask = (0xff << (8 - bits)) & 0xff;
    if ((bytes[bit / 8]! & mask) !== (cidr.bytes[bit / 8]! & mask)) return false;
  }
  return true;
}

const compile = (rows: readonly Row[]) => rows.map(([cidr, name]) => ({ cidr, name, parsed: parseCidr(cidr) }));
const v4 = compile(IPV4_SPECIAL);
const v6 = compile(IPV6_SPECIAL);
const carriers = CARRIERS.map(([cidr, name, at]) => ({ cidr, name, at, parsed: parseCidr(cidr) }));
const globalUnicast = parseCidr(GLOBAL_UNICAST);

function ipv4Reason(bytes: number[]): string | null {
  const row = v4.find((entry) => inPrefix(bytes, entry.parsed));
  return row ? `${row.name}, ${row.cidr}` : null;
}

/**
 * Why `address` (an IP literal, brackets and zone allowed) may not be a destination, or null when
 * it is an ordinary public address. Anything that is not an IP address is refused.
 */
export function specialPurposeReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return ipv4Reason(ipv4Bytes(bare));
  if (family !== 6) return "not an IP address";
  const bytes = ipv6Bytes(bare);
  const row = v6.find((entry) => inPrefix(bytes, entry.parsed));
  if (row) return `${row.name}, ${row.cidr}`;
  const carrier = carriers.find((entry) => inPrefix(bytes, entry.parsed));
  if (carrier) {
    const inner = bytes.slice(carrier.at, carrier.at + 4);
    const reason = ipv4Reason(inner);
    return reason ? `${carrier.name} form of ${inner.join(".")} (${reason})` : null;
  }
  // Everything outside 2000::/3 that no row names is kept in reserve by the IETF: nobody's server.
  if (!inPrefix(bytes, globalUnicast)) return "reserved by the IETF, outside 2000::/3";
  return null;
}
