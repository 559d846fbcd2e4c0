import { describe, expect, it } from "vitest";
import { IPV4_SPECIAL, IPV6_SPECIAL, specialPurposeReason } from "./special-purpose-address";

// One row per refused range: an address inside (refused, naming the range) and one just outside.
// `outside` is allowed unless the neighbouring range is refused too; then its reason is given.
const RANGES: { cidr: string; inside: string[]; outside: string; outsideReason?: RegExp }[] = [
  { cidr: "0.0.0.0/8", inside: ["0.0.0.0", "0.255.255.255"], outside: "1.0.0.0" },
  { cidr: "10.0.0.0/8", inside: ["10.0.0.0", "10.255.255.255"], outside: "11.0.0.0" },
  { cidr: "100.64.0.0/10", inside: ["100.64.0.0", "100.127.255.255"], outside: "100.128.0.0" },
  { cidr: "127.0.0.0/8", inside: ["127.0.0.1", "127.255.255.255"], outside: "128.0.0.0" },
  { cidr: "169.254.0.0/16", inside: ["169.254.169.254", "169.254.0.1"], outside: "169.255.0.0" },
  { cidr: "172.16.0.0/12", inside: ["172.16.0.0", "172.31.255.255"], outside: "172.32.0.0" },
  { cidr: "192.0.0.0/24", inside: ["192.0.0.0", "192.0.0.255"], outside: "192.0.1.0" },
  { cidr: "192.0.2.0/24", inside: ["192.0.2.1"], outside: "192.0.3.0" },
  { cidr: "192.31.196.0/24", inside: ["192.31.196.1"], outside: "192.31.197.0" },
  { cidr: "192.52.193.0/24", inside: ["192.52.193.1"], outside: "192.52.194.0" },
  { cidr: "192.88.99.0/24", inside: ["192.88.99.1"], outside: "192.88.100.0" },
  { cidr: "192.168.0.0/16", inside: ["192.168.1.1", "192.168.255.255"], outside: "192.169.0.0" },
  { cidr: "192.175.48.0/24", inside: ["192.175.48.1"], outside: "192.175.49.0" },
  { cidr: "198.18.0.0/15", inside: ["198.18.0.1", "198.19.255.255"], outside: "198.20.0.0" },
  { cidr: "198.51.100.0/24", inside: ["198.51.100.1"], outside: "198.51.101.0" },
  { cidr: "203.0.113.0/24", inside: ["203.0.113.1"], outside: "203.0.114.0" },
  { cidr: "224.0.0.0/4", inside: ["224.0.0.1", "239.255.255.255"], outside: "223.255.255.255" },
  { cidr: "240.0.0.0/4", inside: ["240.0.0.0", "255.255.255.255"], outside: "239.255.255.255", outsideReason: /multicast/ },

  { cidr: "::/128", inside: ["::", "0:0:0:0:0:0:0:0"], outside: "::2", outsideReason: /IPv4-compatible form of 0\.0\.0\.2/ },
  { cidr: "::1/128", inside: ["::1", "[::1]"], outside: "::2", outsideReason: /IPv4-compatible/ },
  { cidr: "64:ff9b::/96", inside: ["64:ff9b::808:808", "64:ff9b::10.0.0.1"], outside: "64:ff9b::1:0:0", outsideReason: /outside 2000::\/3/ },
  { cidr: "64:ff9b:1::/48", inside: ["64:ff9b:1::808:808", "64:ff9b:1:ffff::1"], outside: "64:ff9b:2::", outsideReason: /outside 2000::\/3/ },
  { cidr: "::ffff:0:0:0/96", inside: ["::ffff:0:808:808"], outside: "::1:0:0:0", outsideReason: /outside 2000::\/3/ },
  { cidr: "100::/64", inside: ["100::1"], outside: "100:0:0:2::", outsideReason: /outside 2000::\/3/ },
  { cidr: "100:0:0:1::/64", inside: ["100:0:0:1::1"], outside: "100:0:0:2::1", outsideReason: /outside 2000::\/3/ },
  { cidr: "2001::/32", inside: ["2001:0:4136:e378:8000:63bf:3fff:fdd2"], outside: "2001:1::5", outsideReason: /IETF protocol assignments/ },
  { cidr: "2001:2::/48", inside: ["2001:2::1", "2001:2:0:ffff::1"], outside: "2001:2:1::", outsideReason: /IETF protocol assignments/ },
  { cidr: "2001:3::/32", inside: ["2001:3::1"], outside: "2001:4::", outsideReason: /IETF protocol assignments/ },
  { cidr: "2001:4:112::/48", inside: ["2001:4:112::1"], outside: "2001:4:113::", outsideReason: /IETF protocol assignments/ },
  { cidr: "2001:10::/28", inside: ["2001:1f::1"], outside: "2001:20::", outsideReason: /ORCHIDv2/ },
  { cidr: "2001:20::/28", inside: ["2001:2f::1"], outside: "2001:30::", outsideReason: /drone/ },
  { cidr: "2001:30::/28", inside: ["2001:3f::1"], outside: "2001:40::", outsideReason: /IETF protocol assignments/ },
  { cidr: "2001::/23", inside: ["2001:1::1", "2001:1ff::1"], outside: "2001:200::1" },
  { cidr: "2001:db8::/32", inside: ["2001:db8::1", "2001:db8:ffff::1"], outside: "2001:db9::" },
  { cidr: "2620:4f:8000::/48", inside: ["2620:4f:8000::1"], outside: "2620:4f:8001::" },
  { cidr: "3fff::/20", inside: ["3fff:fff::1"], outside: "3fff:1000::" },
  { cidr: "5f00::/16", inside: ["5f00::1"], outside: "5f01::", outsideReason: /outside 2000::\/3/ },
  { cidr: "fc00::/7", inside: ["fc00::1", "fd00:ec2::254"], outside: "fe00::", outsideReason: /outside 2000::\/3/ },
  { cidr: "fec0::/10", inside: ["fec0::1", "feff::1"], outside: "febf::1", outsideReason: /link-local/ },
  { cidr: "fe80::/10", inside: ["fe80::1", "fe80::1%eth0", "febf::1"], outside: "fe7f::1", outsideReason: /outside 2000::\/3/ },
  { cidr: "ff00::/8", inside: ["ff02::1", "ffff::1"], outside: "feff::1", outsideReason: /site-local/ },
];

describe("refuses every special-purpose range, and only it", () => {
  it("has a row here for every range in the table", () => {
    const listed = new Set(RANGES.map((row) => row.cidr));
    expect([...IPV4_SPECIAL, ...IPV6_SPECIAL].map(([cidr]) => cidr).filter((cidr) => !listed.has(cidr))).toEqual([]);
  });

  for (const row of RANGES) {
    it(`${row.cidr}: inside refused, just outside ${row.outsideReason ? "refused by its neighbour" : "allowed"}`, () => {
      for (const address of row.inside) expect(specialPurposeReason(address), address).toContain(row.cidr);
      const outside = specialPurposeReason(row.outside);
      if (row.outsideReason) {
        expect(outside, row.outside).toMatch(row.outsideReason);
        expect(outside).not.toContain(row.cidr);
      } else expect(outside, row.outside).toBeNull();
    });
  }

  it("refuses IPv6 outside global unicast 2000::/3 and allows inside it", () => {
    for (const address of ["1::", "4000::1", "8000::1", "e000::1", "1fff:ffff::1"]) expect(specialPurposeReason(address), address).toMatch(/outside 2000::\/3/);
    for (const address of ["2000::1", "3ffe::1", "2a00:1450:4001::200e"]) expect(specialPurposeReason(address), address).toBeNull();
  });

  it("allows ordinary public addresses", () => {
    for (const address of ["1.1.1.1", "8.8.8.8", "93.184.216.34", "2606:4700:4700::1111", "[2a00:1450::1]"]) {
      expect(specialPurposeReason(address), address).toBeNull();
    }
  });

  it("refuses what is not an IP address", () => {
    expect(specialPurposeReason("example.com")).toBe("not an IP address");
  });
});

describe("IPv6 forms carrying an IPv4 address", () => {
  const cases: [form: string, privateForm: string[], publicForm: string[], publicRefused: boolean][] = [
    ["IPv4-mapped ::ffff:0:0/96", ["::ffff:10.0.0.1", "::ffff:a00:1", "0:0:0:0:0:ffff:7f00:1", "::ffff:169.254.169.254", "::ffff:192.0.2.1"], ["::ffff:1.1.1.1", "::ffff:101:101"], false],
    ["IPv4-compatible ::/96", ["::10.0.0.1", "::a00:1", "::127.0.0.1", "::192.0.2.1"], ["::1.1.1.1", "::101:101"], false],
    ["6to4 2002::/16", ["2002:a00:1::1", "2002:7f00:1::", "2002:c000:201::1", "2002:a9fe:a9fe::"], ["2002:101:101::1"], false],
    // Refused outright, whatever they carry (see the README): Teredo and NAT64.
    ["Teredo 2001::/32 (server 65.54.227.120, client 10.0.0.1 obfuscated)", ["2001:0:4136:e378:8000:63bf:f5ff:fffe"], ["2001:0:4136:e378:8000:63bf:fefe:fefe"], true],
    ["NAT64 64:ff9b::/96", ["64:ff9b::10.0.0.1", "64:ff9b::a00:1"], ["64:ff9b::1.1.1.1"], true],
    ["local NAT64 64:ff9b:1::/48", ["64:ff9b:1::a00:1"], ["64:ff9b:1::101:101"], true],
  ];
  for (const [form, privateForms, publicForms, publicRefused] of cases) {
    it(`${form}: a private IPv4 refused, a public one ${publicRefused ? "refused too" : "allowed"}`, () => {
      for (const address of privateForms) expect(specialPurposeReason(address), address).not.toBeNull();
      for (const address of publicForms) {
        if (publicRefused) expect(specialPurposeReason(address), address).not.toBeNull();
        else expect(specialPurposeReason(address), address).toBeNull();
      }
    });
  }

  it("names the IPv4 inside", () => {
    expect(specialPurposeReason("::ffff:10.0.0.1")).toBe("IPv4-mapped form of 10.0.0.1 (private-use, 10.0.0.0/8)");
    expect(specialPurposeReason("2002:c000:201::")).toBe("6to4 form of 192.0.2.1 (documentation (TEST-NET-1), 192.0.2.0/24)");
  });
});
