// SSRF at save (REST 400) and at connect (a delivery to a forbidden address dies without a single
// connection reaching the server), with loopback servers as the only real targets.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import * as endpointItem from "@/app/api/v1/endpoints/[id]/route";
import * as endpointList from "@/app/api/v1/endpoints/route";
import { sendToDestination } from "@/lib/delivery/engine/send-to-destination";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { useDeliveryWorkerSuite } from "@/test/delivery-worker-suite";
import { callRoute } from "@/test/fixtures";

useTestDatabase();
const suite = useDeliveryWorkerSuite(); // sets INBOX_ALLOW_PRIVATE_DESTINATIONS=true before each test

/** A loopback server that counts every TCP connection made to it, and answers 200. */
async function countingServer() {
  let connections = 0;
  const server = http.createServer((_req, res) => void res.end("ok"));
  server.on("connection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { port, connections: () => connections, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

let target: Awaited<ReturnType<typeof countingServer>>;
beforeAll(async () => {
  target = await countingServer();
});
afterAll(() => target.close());

const FORBIDDEN = [
  "http://192.0.2.1/hook",
  "http://198.51.100.7/",
  "http://203.0.113.9:8080/",
  "http://198.18.0.1/",
  "http://100.64.0.1/",
  "http://169.254.169.254/latest/meta-data",
  "http://240.0.0.1/",
  "http://[2001:db8::1]/",
  "http://[::ffff:10.0.0.1]/",
  "http://[::10.0.0.1]/",
  "http://[::]/",
  "http://[64:ff9b::a00:1]/",
  "http://[64:ff9b:1::a00:1]/",
  "http://[2002:a00:1::1]/",
  "http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/",
  "http://[fec0::1]/",
  "http://[fd00:ec2::254]/",
  "http://[ff02::1]/",
];

describe("the REST API refuses forbidden destinations at save", () => {
  beforeEach(() => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "false";
  });

  it("answers 400 naming destinationUrl for each, on create and on update", async () => {
    const created = await callRoute(endpointList.POST, {
      method: "POST",
      apiKey: suite.org.apiKey,
      body: { name: "Public", provider: "none", destinationUrl: "http://[2606:4700:4700::1111]/hook" },
    });
    expect(created.status).toBe(201);
    for (const destinationUrl of FORBIDDEN) {
      const create = await callRoute(endpointList.POST, { method: "POST", apiKey: suite.org.apiKey, body: { name: "Bad", provider: "none", destinationUrl } });
      expect(create.status, destinationUrl).toBe(400);
      expect(JSON.stringify(create.body), destinationUrl).toMatch(/private or internal/);
      const update = await callRoute(endpointItem.PATCH, {
        method: "PATCH",
        apiKey: suite.org.apiKey,
        params: { id: created.body.id },
        body: { destinationUrl },
      });
      expect(update.status, destinationUrl).toBe(400);
    }
  });

  it("refuses a host name that resolves to loopback", async () => {
    const create = await callRoute(endpointList.POST, {
      method: "POST",
      apiKey: suite.org.apiKey,
      body: { name: "Bad", provider: "none", destinationUrl: `http://localhost:${target.port}/` },
    });
    expect(create.status).toBe(400);
    expect(target.connections()).toBe(0);
  });
});

describe("refuses at connect time, without connecting", () => {
  // Node's http skips the `lookup` hook for IP-literal hosts: these must be caught before connecting.
  const literal = () => [`http://127.0.0.1:${target.port}/`, `http://[::ffff:127.0.0.1]:${target.port}/`, `http://[::ffff:7f00:1]:${target.port}/`, `http://127.1:${target.port}/`];

  it("sendToDestination refuses literals and names that resolve to loopback, and the server sees no connection", async () => {
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "false";
    for (const url of [...literal(), `http://localhost:${target.port}/`, "http://192.0.2.1/", "http://[2002:c000:201::]/"]) {
      const output = await sendToDestination({ url, headers: {}, body: Buffer.from("{}"), timeoutMs: 2_000 });
      expect(output.result.kind, url).toBe("forbidden_destination");
    }
    expect(target.connections()).toBe(0);
  });

  it("connects to the same server once private destinations are allowed (the test's control)", async () => {
    const before = target.connections();
    const output = await sendToDestination({ url: `http://[::ffff:127.0.0.1]:${target.port}/`, headers: {}, body: Buffer.from("{}"), timeoutMs: 5_000 });
    expect(output.result).toMatchObject({ kind: "response", statusCode: 200 });
    expect(target.connections()).toBe(before + 1);
  });

  it("a stored delivery whose destination became forbidden dies at its attempt, with nothing sent", async () => {
    const endpoints = await Promise.all(
      [...literal(), `http://localhost:${target.port}/`].map((url) => createEndpointFixture(suite.org.ctx, url)), // saved while allowed
    );
    const before = target.connections();
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "false";
    const ids = await Promise.all(endpoints.map(async (endpoint) => (await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id })).id));
    for (const id of ids) {
      const delivery = await suite.settled(id, "dead");
      expect(delivery.attempts).toHaveLength(1);
      expect(delivery.lastError).toMatch(/private or internal address \((loopback|IPv4-mapped form of 127\.0\.0\.1).*\)/);
    }
    expect(target.connections()).toBe(before);
  });
});

describe("redirects are not followed", () => {
  it("records the redirect as the answer; the place it points to gets nothing", async () => {
    const redirected = await suite.destination((_req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${target.port}/elsewhere` });
      res.end();
    });
    const before = target.connections();
    const output = await sendToDestination({ url: redirected.url, headers: {}, body: Buffer.from("{}"), timeoutMs: 5_000 });
    expect(output.result).toMatchObject({ kind: "response", statusCode: 307, location: `http://127.0.0.1:${target.port}/elsewhere` });
    expect(redirected.requests).toHaveLength(1);
    expect(target.connections()).toBe(before);
  });
});
