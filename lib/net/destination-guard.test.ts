import { afterEach, describe, expect, it } from "vitest";
import os from "node:os";
import { assertDestinationAllowed, isPrivateAddress, literalRefusal } from "./destination-guard";

afterEach(() => {
  delete process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS;
});

describe("destination guard", () => {
  it("classes internal addresses as private", () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00:ec2::254", "::ffff:127.0.0.1"]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
    for (const address of ["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"]) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });

  it("refuses loopback and metadata destinations by default", async () => {
    await expect(assertDestinationAllowed("http://127.0.0.1:8080/hook")).rejects.toThrow(/private or internal/);
    await expect(assertDestinationAllowed("http://localhost/hook")).rejects.toThrow(/private or internal/);
    await expect(assertDestinationAllowed("http://169.254.169.254/latest/meta-data")).rejects.toThrow(/private or internal/);
    await expect(assertDestinationAllowed("http://[::1]/")).rejects.toThrow(/private or internal/);
  });

  it("refuses non-http schemes and malformed URLs", async () => {
    await expect(assertDestinationAllowed("ftp://example.com/")).rejects.toThrow(/http or https/);
    await expect(assertDestinationAllowed("not a url")).rejects.toThrow(/absolute/);
  });

  it("allows private destinations when the operator says so", async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    await expect(assertDestinationAllowed("http://127.0.0.1:8080/hook")).resolves.toBeUndefined();
  });
});

describe("literalRefusal, the connect-time check of IP-literal hosts (which skip DNS)", () => {
  it("refuses special-purpose literals and this machine's own interface addresses, and passes public ones and names", () => {
    const own = Object.values(os.networkInterfaces()).flatMap((list) => list ?? []).filter((entry) => !entry.internal).map((entry) => entry.address);
    expect(own.length).toBeGreaterThan(0);
    for (const host of ["127.0.0.1", "[::ffff:7f00:1]", "[::1]", "192.0.2.1", "[2002:a00:1::]", "[fec0::1]", ...own]) {
      expect(literalRefusal(host)?.message, host).toMatch(/private or internal/);
    }
    for (const host of ["1.1.1.1", "[2606:4700:4700::1111]", "example.com"]) expect(literalRefusal(host), host).toBeNull();
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    expect(literalRefusal("127.0.0.1")).toBeNull();
  });
});
