import { afterEach, describe, expect, it } from "vitest";
import { clientAddress, throttleAddress } from "./client-address";

const saved = { proxies: process.env.TRUSTED_PROXIES, hook: process.env.INBOX_PEER_ADDRESS_APPENDED };
afterEach(() => {
  if (saved.proxies === undefined) delete process.env.TRUSTED_PROXIES;
  else process.env.TRUSTED_PROXIES = saved.proxies;
  process.env.INBOX_PEER_ADDRESS_APPENDED = saved.hook;
});

/** X-Forwarded-For as route handlers see it: what the client sent, then each hop's peer; the last is the socket peer. */
const from = (forwardedFor: string | null) => clientAddress(new Headers(forwardedFor === null ? {} : { "x-forwarded-for": forwardedFor }));

describe("clientAddress walks X-Forwarded-For from the right, past trusted proxies only", () => {
  it("trusts no proxy by default: the socket peer, whatever the client wrote", () => {
    delete process.env.TRUSTED_PROXIES;
    expect(from("6.6.6.6, 127.0.0.1")).toBe("127.0.0.1");
    expect(from("6.6.6.6, 10.0.0.5, 203.0.113.7")).toBe("203.0.113.7");
    expect(from("198.51.100.2")).toBe("198.51.100.2");
  });

  it("skips TRUSTED_PROXIES hops and stops at the first address that is not one", () => {
    process.env.TRUSTED_PROXIES = "127.0.0.1/32, 10.0.0.0/8";
    expect(from("6.6.6.6, 127.0.0.1")).toBe("6.6.6.6");
    expect(from("6.6.6.6, 203.0.113.7, 10.1.2.3, 127.0.0.1")).toBe("203.0.113.7"); // 6.6.6.6 was written by the client
    expect(from("10.0.0.9, 127.0.0.1")).toBe("10.0.0.9"); // all trusted: the furthest we know
  });

  it("matches IPv6 proxies and plain addresses, and refuses entries that are no CIDR, naming TRUSTED_PROXIES", () => {
    process.env.TRUSTED_PROXIES = "::1, fd00::/8";
    expect(from("6.6.6.6, fd12::1, ::1")).toBe("6.6.6.6");
    expect(from("6.6.6.6, 10.0.0.1")).toBe("10.0.0.1");
    process.env.TRUSTED_PROXIES = "::1, fd00::/8, not-a-cidr, 10.0.0.0/99";
    expect(() => from("6.6.6.6, ::1")).toThrow(/TRUSTED_PROXIES=.*IP addresses or CIDR blocks/);
  });

  it("compares an IPv4-mapped IPv6 proxy block as the IPv4 block it holds", () => {
    process.env.TRUSTED_PROXIES = "::ffff:10.0.0.0/104";
    expect(from("6.6.6.6, 10.1.2.3")).toBe("6.6.6.6");
  });

  it("shows IPv4-mapped addresses as IPv4, on either side of the walk", () => {
    delete process.env.TRUSTED_PROXIES;
    expect(from("6.6.6.6, ::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(from("::ffff:c633:6402")).toBe("198.51.100.2");
    process.env.TRUSTED_PROXIES = "127.0.0.1/32";
    expect(from("::ffff:203.0.113.7, ::ffff:127.0.0.1")).toBe("203.0.113.7");
  });

  it("reads hops with a port or brackets, and gives up on a hop that is no address", () => {
    process.env.TRUSTED_PROXIES = "127.0.0.1";
    expect(from("203.0.113.7:4711, 127.0.0.1")).toBe("203.0.113.7");
    expect(from("[2001:db8::7]:443, 127.0.0.1")).toBe("2001:db8::7");
    expect(from("evil, 127.0.0.1")).toBeNull();
    expect(from("6.6.6.6, unknown")).toBeNull();
    expect(from(null)).toBeNull();
  });

  it("knows nothing without the web server's peer hook (next dev, a bare next start)", () => {
    delete process.env.INBOX_PEER_ADDRESS_APPENDED;
    expect(from("6.6.6.6")).toBeNull();
  });
});

describe("throttleAddress: what a per-address throttle counts a request under", () => {
  const throttled = (forwardedFor: string) => throttleAddress(new Headers({ "x-forwarded-for": forwardedFor }));

  it("is the client's address, or one shared 'unparseable' when a trusted hop passed on no address", () => {
    process.env.INBOX_PEER_ADDRESS_APPENDED = "1";
    process.env.TRUSTED_PROXIES = "127.0.0.1";
    expect(throttled("6.6.6.6, 127.0.0.1")).toBe("6.6.6.6");
    expect(throttled("garbage, 127.0.0.1")).toBe("unparseable");
    expect(throttled("6.6.6.6, 999.0.0.1, 127.0.0.1")).toBe("unparseable");
    // clientAddress, for records, still says it does not know.
    expect(from("garbage, 127.0.0.1")).toBeNull();
    delete process.env.INBOX_PEER_ADDRESS_APPENDED;
    expect(throttled("garbage, 127.0.0.1")).toBeNull();
  });
});
