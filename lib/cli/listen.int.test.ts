// `inbox listen` over real HTTP (#44): the product as deployed (the Next.js server and a worker process), the CLI as
// a developer runs it (a child process), and a developer's local server that verifies the provider's signature
// itself, as their code would. Forwarded byte for byte with the original headers; retried when the local server
// fails; never twice once acknowledged; nothing lost when the CLI is killed mid-batch; Ctrl-C leaves it tidy.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { startDestination, until, type Destination, type ReceivedRequest } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { standardWebhooksHeaders } from "@/test/ingest-requests";
import { startNextServer, type RunningServer } from "@/test/next-server";
import { buildStandaloneCli } from "./build-standalone";

const database = useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true"; // the endpoint made in this process: its unused default destination is local
const children = new Set<ChildProcess>();
let server: RunningServer;
let local: Destination;
let org: Awaited<ReturnType<typeof createOrganizationFixture>>;

beforeAll(async () => {
  server = await startNextServer({ databaseUrl: database.url(), env: { INBOX_ALLOW_PRIVATE_DESTINATIONS: "true" } });
  const worker = spawn(process.execPath, ["--import", "tsx", "jobs/worker.ts"], {
    env: { ...process.env, DATABASE_URL: database.url(), DELIVERY_LOG: "problems", INBOX_ALLOW_PRIVATE_DESTINATIONS: "true" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  children.add(worker);
  local = await startDestination();
  org = await createOrganizationFixture("Laptop");
}, 240_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await local?.close();
  await server?.stop();
});

/** An endpoint signing with Standard Webhooks, as a provider would; its default destination goes nowhere. */
async function endpointWithSecret(name: string) {
  const endpoint = await createEndpoint({ ctx: org.ctx, input: { name, provider: "standard-webhooks", destinationUrl: "http://127.0.0.1:9/unused", paused: true } });
  return { id: endpoint.id, secret: endpoint.secret! };
}

/** Sends `count` signed webhooks to the endpoint over HTTP; the request ids the ingest answers gave. */
async function send(endpoint: { id: string; secret: string }, count: number, from = 0): Promise<string[]> {
  const ids: string[] = [];
  for (let i = from; i < from + count; i++) {
    const body = JSON.stringify({ type: i % 3 ? "invoice.paid" : "customer.created", id: `evt_${i}_${Math.random().toString(36).slice(2, 8)}`, data: { customer: `cus_${1000 + i}`, email: `dev${i}@example.com`, note: "naïve café ✓" } });
    const answer = await fetch(`${server.url}/in/${endpoint.id}`, { method: "POST", headers: { "content-type": "application/json", ...standardWebhooksHeaders(endpoint.secret, body) }, body });
    expect(answer.status).toBe(200);
    ids.push(((await answer.json()) as { id: string }).id);
  }
  return ids;
}

interface Listener { child: ChildProcess; lines: string[]; exited: Promise<number | null> }

/** The CLI as a developer runs it: `npm run inbox -- listen …` (or the standalone file). */
function startListen(endpointId: string, extra: string[] = [], command: string[] = ["--import", "tsx", "lib/cli/inbox.ts"]): Listener {
  const child = spawn(process.execPath, [...command, "listen", "--url", server.url, "--key", org.apiKey, "--endpoint", endpointId, "--forward", local.url, "--lease-seconds", "5", ...extra], {
    env: { ...process.env, DATABASE_URL: "" },
    // The standalone file runs from a directory of its own: no checkout, no node_modules.
    cwd: command[0]!.endsWith(".mjs") ? path.dirname(command[0]!) : process.cwd(),
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.add(child);
  const lines: string[] = [];
  let rest = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    const text = rest + chunk.toString("utf8");
    const parts = text.split("\n");
    rest = parts.pop()!;
    lines.push(...parts);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, lines, exited };
}

const deliveryIdOf = (request: ReceivedRequest) => String(request.headers["x-inbox-delivery-id"]);
const answered = new WeakMap<ReceivedRequest, number>();

/** The local server: verifies the signature as the developer's code would; fails when `fail` says so. */
function verifyingHandler(secret: string, fail: (request: ReceivedRequest) => boolean, delayMs = 0) {
  const webhook = new Webhook(secret);
  return async (request: ReceivedRequest, response: import("node:http").ServerResponse) => {
    if (delayMs) await new Promise((r) => setTimeout(r, delayMs));
    let status = 200;
    try {
      webhook.verify(request.body.toString("utf8"), request.headers as Record<string, string>);
    } catch {
      status = 401;
    }
    if (status === 200 && fail(request)) status = 500;
    answered.set(request, status);
    response.statusCode = status;
    response.end(status === 200 ? "ok" : "no");
  };
}

const statusesOf = (ids: string[]) => getSql()<{ id: string; status: string }[]>`
  select split_part(id, ':', 1) as id, status from deliveries where split_part(id, ':', 1) = any(${ids}) and destination_id in (
    select id from destinations where type = 'pull')`;

describe("inbox listen", () => {
  it("forwards 100 deliveries byte for byte, retries the ones the local server failed, and none twice once acknowledged", { timeout: 240_000 }, async () => {
    const endpoint = await endpointWithSecret("Laptop loop");
    // Every tenth delivery's first attempt fails.
    const tenth = (request: ReceivedRequest) => Number((JSON.parse(request.body.toString("utf8")) as { id: string }).id.split("_")[1]) % 10 === 0;
    local.setHandler(verifyingHandler(endpoint.secret, (request) => request.headers["x-inbox-attempt"] === "1" && tenth(request)));
    const listener = startListen(endpoint.id);
    await until("the listener opened its destination", () => listener.lines.some((line) => line.startsWith("Forwarding")), 30_000);
    const ids = await send(endpoint, 100);
    const okFor = (id: string) => local.requests.filter((r) => deliveryIdOf(r) === id && answered.get(r) === 200);
    await until("every delivery answered 2xx locally", () => ids.every((id) => okFor(id).length > 0), 180_000);
    await until("every delivery delivered", async () => (await statusesOf(ids)).filter((row) => row.status === "delivered").length === 100, 30_000);
    // A lease past its end would bring an acknowledged one back: wait past one, then count.
    await new Promise((r) => setTimeout(r, 6000));
    const mine = local.requests.filter((r) => ids.includes(deliveryIdOf(r)));
    expect(mine.every((r) => answered.get(r) !== 401), "the provider's signature verified on the laptop").toBe(true);
    for (const id of ids) expect(okFor(id), id).toHaveLength(1);
    const failedFirst = ids.filter((id) => mine.some((r) => deliveryIdOf(r) === id && answered.get(r) === 500));
    expect(failedFirst).toHaveLength(10);
    for (const id of failedFirst) {
      const attempts = mine.filter((r) => deliveryIdOf(r) === id).map((r) => r.headers["x-inbox-attempt"]);
      expect(attempts, id).toEqual(["1", "2"]);
    }
    // One line per delivery forwarded: its time, event type, local status and duration.
    expect(listener.lines.filter((line) => / invoice\.paid .* 200 .* ms /.test(line)).length).toBeGreaterThan(50);
    expect(listener.lines.some((line) => / 500 .* ms /.test(line))).toBe(true);

    listener.child.kill("SIGINT");
    expect(await listener.exited).toBe(0);
    expect(listener.lines.at(-1)).toMatch(/^\d+ forwarded: \d+ succeeded, \d+ failed\. Destination dst_\w+ deleted\.$/);
    const [left] = await getSql()`select count(*)::int as n from destinations where endpoint_id = ${endpoint.id} and type = 'pull' and deleted_at is null`;
    expect(left!.n).toBe(0);
  });

  it("loses nothing and acknowledges nothing unforwarded when killed mid-batch and started again", { timeout: 240_000 }, async () => {
    const endpoint = await endpointWithSecret("Killed");
    local.setHandler(verifyingHandler(endpoint.secret, () => false, 150));
    const first = startListen(endpoint.id, ["--keep"]);
    await until("the listener opened its destination", () => first.lines.some((line) => line.startsWith("Forwarding")), 30_000);
    const ids = await send(endpoint, 30);
    await until("a few forwarded", () => local.requests.filter((r) => ids.includes(deliveryIdOf(r))).length >= 5, 60_000);
    first.child.kill("SIGKILL");
    await first.exited;
    // Everything the server counts delivered was answered 2xx by the local server.
    const acked = (await statusesOf(ids)).filter((row) => row.status === "delivered").map((row) => row.id);
    const forwardedOk = new Set(local.requests.filter((r) => answered.get(r) === 200).map(deliveryIdOf));
    expect(acked.every((id) => forwardedOk.has(id))).toBe(true);
    expect(acked.length).toBeLessThan(30);

    const second = startListen(endpoint.id, ["--keep"]);
    await until("every delivery delivered after the restart", async () => (await statusesOf(ids)).filter((row) => row.status === "delivered").length === 30, 120_000);
    expect(second.lines.some((line) => /^Forwarding .*\(dst_\w+\)/.test(line)), "the same destination, reused").toBe(true);
    for (const id of ids) expect(local.requests.some((r) => deliveryIdOf(r) === id && answered.get(r) === 200), id).toBe(true);
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
    const [kept] = await getSql()`select paused from destinations where endpoint_id = ${endpoint.id} and type = 'pull' and deleted_at is null`;
    expect(kept!.paused).toBe(true);
  });

  it("reconnects by itself when the server restarts, and forwards what came meanwhile", { timeout: 240_000 }, async () => {
    const endpoint = await endpointWithSecret("Restarted");
    local.setHandler(verifyingHandler(endpoint.secret, () => false));
    const listener = startListen(endpoint.id);
    await until("the listener opened its destination", () => listener.lines.some((line) => line.startsWith("Forwarding")), 30_000);
    const before = await send(endpoint, 3);
    await until("delivered before the restart", async () => (await statusesOf(before)).filter((row) => row.status === "delivered").length === 3, 60_000);
    const port = Number(new URL(server.url).port);
    await server.stop();
    await until("the listener saw the server go", () => listener.lines.some((line) => / pulling failed \(/.test(line)), 60_000);
    server = await startNextServer({ databaseUrl: database.url(), port, env: { INBOX_ALLOW_PRIVATE_DESTINATIONS: "true" } });
    const after = await send(endpoint, 3, 3);
    await until("delivered after the restart", async () => (await statusesOf(after)).filter((row) => row.status === "delivered").length === 3, 90_000);
    expect(listener.lines.some((line) => /  reconnected$/.test(line))).toBe(true);
    listener.child.kill("SIGINT");
    expect(await listener.exited).toBe(0);
  });

  it("works as one standalone file that needs only Node", { timeout: 240_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "inbox-cli-"));
    try {
      const file = await buildStandaloneCli(path.join(dir, "inbox.mjs"));
      const endpoint = await endpointWithSecret("Standalone");
      local.setHandler(verifyingHandler(endpoint.secret, () => false));
      // Run from a directory with no node_modules: the file carries what it needs.
      const listener = startListen(endpoint.id, [], [file]);
      await until("the listener opened its destination", () => listener.lines.some((line) => line.startsWith("Forwarding")), 30_000);
      const ids = await send(endpoint, 3);
      await until("delivered", async () => (await statusesOf(ids)).filter((row) => row.status === "delivered").length === 3, 60_000);
      listener.child.kill("SIGINT");
      expect(await listener.exited).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
