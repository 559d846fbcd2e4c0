import os from "node:os";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assertDestinationAllowed } from "./destination-guard";
import { canonicalAddress } from "./own-address-guard";

const saved = { APP_URL: process.env.APP_URL, PORT: process.env.PORT, ALLOW: process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS };
function restore(name: string, value: string | undefined) {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
afterEach(() => {
  restore("APP_URL", saved.APP_URL);
  restore("PORT", saved.PORT);
  restore("INBOX_ALLOW_PRIVATE_DESTINATIONS", saved.ALLOW);
});

const refused = (url: string) => expect(assertDestinationAllowed(url), url).rejects.toThrow(/this service itself/);
const allowed = (url: string) => expect(assertDestinationAllowed(url), url).resolves.toBeUndefined();
/** A non-loopback address of this machine's own interfaces, if it has one. */
const interfaceAddress = Object.values(os.networkInterfaces()).flatMap((list) => list ?? []).find((entry) => !entry.internal && entry.family === "IPv4")?.address;

describe("refuses a destination on this service's own address, even with private destinations allowed", () => {
  beforeEach(() => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
    process.env.PORT = "3100";
  });

  it("refuses APP_URL's host and port in any spelling, the default port included", async () => {
    process.env.APP_URL = "https://Inbox.Example.com";
    for (const url of [
      "https://inbox.example.com/in/ep_1",
      "https://INBOX.EXAMPLE.COM./in/ep_1",
      "https://inbox.example.com:443/anything",
      "http://inbox.example.com:443/in/ep_1",
    ]) await refused(url);
    await allowed("http://inbox.example.com/in/ep_1"); // port 80: not where APP_URL serves
    await allowed("https://inbox.example.com:8443/in/ep_1");
    await allowed("https://other.example.com/in/ep_1");
  });

  it("refuses APP_URL's port 80 when APP_URL names no port over http", async () => {
    process.env.APP_URL = "http://inbox.test";
    await refused("http://inbox.test/in/ep_1");
    await refused("http://inbox.test:80/in/ep_1");
    await allowed("http://inbox.test:8080/in/ep_1");
  });

  it("refuses every loopback and unspecified spelling of the port the server listens on", async () => {
    process.env.APP_URL = "https://inbox.example.com";
    for (const url of [
      "http://127.0.0.1:3100/in/ep_1",
      "http://127.1:3100/",
      "http://2130706433:3100/",
      "http://127.0.0.1.:3100/",
      "http://127.8.9.10:3100/",
      "http://localhost:3100/",
      "http://LOCALHOST.:3100/",
      "http://api.localhost:3100/",
      "http://[::1]:3100/",
      "http://[::ffff:127.0.0.1]:3100/",
      "http://[0:0:0:0:0:ffff:7f00:1]:3100/",
      "http://0.0.0.0:3100/",
      "http://[::]:3100/",
      "https://127.0.0.1:3100/",
    ]) await refused(url);
  });

  it("refuses an interface address of this machine on the listening port", async () => {
    expect(interfaceAddress, "this machine has a non-loopback IPv4 interface").toBeTruthy();
    await refused(`http://${interfaceAddress}:3100/in/ep_1`);
    await allowed(`http://${interfaceAddress}:3101/in/ep_1`);
  });

  it("refuses a host name that resolves to this machine on the listening port", async () => {
    await refused(`http://${os.hostname()}:3100/`);
  });

  it("keeps loopback destinations on other ports allowed", async () => {
    process.env.APP_URL = "https://inbox.example.com";
    for (const url of ["http://127.0.0.1:3101/hook", "http://localhost:9/", "http://[::1]:8080/", "http://127.0.0.1/hook", "https://localhost/"]) {
      await allowed(url);
    }
  });

  it("treats APP_URL on loopback as every loopback address on its port", async () => {
    process.env.APP_URL = "http://localhost:4000";
    await refused("http://127.0.0.1:4000/in/ep_1");
    await refused("http://[::1]:4000/in/ep_1");
    await allowed("http://127.0.0.1:4001/in/ep_1");
  });

  it("refuses APP_URL's own IP address literal on its port", async () => {
    process.env.APP_URL = "http://203.0.113.9:8080";
    await refused("http://203.0.113.9:8080/in/ep_1");
    await refused("http://[::ffff:203.0.113.9]:8080/in/ep_1");
    await allowed("http://203.0.113.9:8081/in/ep_1");
  });
});

describe("own interface addresses with private destinations refused", () => {
  it("refuses this machine's interface addresses on any port", async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "false";
    expect(interfaceAddress).toBeTruthy();
    await expect(assertDestinationAllowed(`http://${interfaceAddress}:9/`)).rejects.toThrow(/private or internal/);
  });
});

describe("canonicalAddress", () => {
  it("spells each address one way", () => {
    expect(canonicalAddress("[::ffff:7f00:1]")).toBe("127.0.0.1");
    expect(canonicalAddress("::FFFF:127.0.0.1")).toBe("127.0.0.1");
    expect(canonicalAddress("0:0:0:0:0:0:0:1")).toBe("::1");
    expect(canonicalAddress("fe80::1%eth0")).toBe("fe80::1");
    expect(canonicalAddress("10.0.0.1")).toBe("10.0.0.1");
  });
});
