// No loops: a destination on this service itself would turn every delivery into a new delivery of
// its own, forever. Refused when an endpoint is saved, whatever INBOX_ALLOW_PRIVATE_DESTINATIONS says.
// "Itself" is host + port, never host alone: with private destinations allowed, a loopback
// destination on another port is someone else's server and stays allowed.
import { promises as dns } from "node:dns";
import { isIP } from "node:net";
import os from "node:os";
import { config } from "@/lib/config/config";
import { ValidationError } from "@/lib/errors";

/** A host as the URL parser gives it, compared by value: no brackets, no trailing dots, lower case. */
export function normalizeHost(hostname: string): string {
  return hostname.replace(/^\[|\]$/g, "").replace(/\.+$/, "").toLowerCase();
}

const portOf = (url: URL) => Number(url.port || (url.protocol === "https:" ? 443 : 80));
const isLocalhostName = (host: string) => host === "localhost" || host.endsWith(".localhost");

/** One spelling per address: IPv4 dotted, IPv4-mapped IPv6 as its IPv4, other IPv6 as the URL parser writes it. */
export function canonicalAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (isIP(bare) !== 6) return bare;
  const host = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(host);
  if (!mapped) return host;
  const [hi, lo] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

// Interface addresses, re-read every few seconds: the delivery path asks at every connection.
let interfaces: { addresses: Set<string>; readAt: number } | undefined;
function interfaceAddresses(): Set<string> {
  if (!interfaces || Date.now() - interfaces.readAt > 10_000) {
    const all = Object.values(os.networkInterfaces()).flatMap((list) => list ?? []);
    interfaces = { addresses: new Set(all.map((entry) => canonicalAddress(entry.address))), readAt: Date.now() };
  }
  return interfaces.addresses;
}

/** An address a connection from this machine reaches this machine on: loopback, unspecified, or an interface's. */
export function isLocalAddress(address: string): boolean {
  const canonical = canonicalAddress(address);
  if (/^(127|0)\./.test(canonical) || canonical === "::1" || canonical === "::") return true;
  return interfaceAddresses().has(canonical);
}

interface Self {
  /** The port the web server listens on (PORT, default 3000), on every local address. */
  listenPort: number;
  /** APP_URL's host and port (80/443 when it names none). */
  app?: { host: string; port: number; local: boolean };
}

function self(): Self {
  const { PORT: listenPort, APP_URL } = config();
  const url = new URL(APP_URL);
  const host = normalizeHost(url.hostname);
  return { listenPort, app: { host, port: portOf(url), local: isLocalhostName(host) || (isIP(host) > 0 && isLocalAddress(host)) } };
}

/** The addresses a destination host stands for; a name that does not resolve stands for none. */
async function addressesOf(host: string): Promise<string[]> {
  if (isIP(host)) return [host];
  if (isLocalhostName(host)) return ["127.0.0.1", "::1"];
  try {
    return (await dns.lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    return [];
  }
}

/** Why `url` is this service itself, or null when it is not. */
export async function ownAddressReason(url: URL): Promise<string | null> {
  const host = normalizeHost(url.hostname);
  const port = portOf(url);
  const { listenPort, app } = self();
  if (app && host === app.host && port === app.port) return "this service's own address (APP_URL)";
  const localPorts = new Set([listenPort, ...(app?.local ? [app.port] : [])]);
  const appAddress = app && isIP(app.host) ? canonicalAddress(app.host) : null;
  if (!localPorts.has(port) && !(appAddress && port === app!.port)) return null; // no lookup for other ports
  const addresses = (await addressesOf(host)).map(canonicalAddress);
  if (appAddress && port === app!.port && addresses.includes(appAddress)) return "this service's own address (APP_URL)";
  const local = addresses.find(isLocalAddress);
  if (local && localPorts.has(port)) return `an address this server listens on (${local} port ${port})`;
  return null;
}

/** Refuses (400) a destination that is this service's own ingest URL, or any address and port it serves on. */
export async function assertNotOwnAddress(url: URL, field = "destinationUrl"): Promise<void> {
  const reason = await ownAddressReason(url);
  if (reason) {
    throw new ValidationError(
      `${field} points at this service itself: ${url.host} is ${reason}. Deliveries sent there would come back as new deliveries, in a loop.`,
    );
  }
}
