import { describe, expect, it } from "vitest";
import { addressKey } from "./limits";

describe("addressKey: the address part of a throttle's key", () => {
  it("keeps IPv4 addresses whole and counts IPv6 ones per /64, however they are written", () => {
    expect(addressKey("203.0.113.7")).toBe("203.0.113.7");
    expect(addressKey("2001:db8:1:2::a")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0DB8:0001:0002:ffff:1:2:3")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey("64:ff9b::203.0.113.7")).toBe("64:ff9b:0:0::/64");
  });

  it("puts what is no address in shared buckets, never in none", () => {
    expect(addressKey("unparseable")).toBe("unparseable");
    expect(addressKey("<script>")).toBe("unknown-form");
    expect(addressKey(null)).toBeNull();
  });
});
