// The dashboard's cURL, run for real by bash against a real destination, next to what the worker sent.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Runner } from "graphile-worker";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverTask } from "@/jobs/deliver";
import { NotFoundError } from "@/lib/errors";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture, startDestination, startTestWorker, until, type Destination, type ReceivedRequest } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { generateWebhookSecret } from "@/lib/endpoints/generate-secret";
import { getDeliveryCurl } from "./get-delivery-curl";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

/** As if pasted into a terminal: the command goes to bash on stdin (no argument-size limit). */
function runInBash(command: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const bash = spawn("bash", ["-s"], { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    bash.stderr.on("data", (chunk) => (stderr += chunk));
    bash.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`bash exited ${code}: ${stderr}`))));
    bash.stdin.end(`${command}\n`);
  });
}
let destination: Destination;
let worker: Runner;
beforeAll(async () => {
  destination = await startDestination();
  worker = await startTestWorker({ deliver: deliverTask });
});
afterAll(async () => {
  await worker?.stop();
  await destination?.close();
});

/** Headers as received, less what each HTTP client decides for itself about the connection. */
const comparable = (request: ReceivedRequest) => {
  const { connection: _connection, ...rest } = request.headers;
  return rest;
};

async function runCurl(command: string): Promise<ReceivedRequest> {
  const before = destination.requests.length;
  await runInBash(command);
  return until("the curl request", () => destination.requests[before]);
}

describe("the delivery's cURL re-sends exactly what the worker sends", () => {
  const bodies: Array<[string, Buffer]> = [
    ["JSON with quotes, newlines and non-ASCII", Buffer.from(`{"note":"it's \\"quoted\\"",\n  "city":"Zürich 🚀",\t"x":"$HOME \`id\` !!"}\n`)],
    ["binary bytes (NUL, CR, invalid UTF-8)", Buffer.from([0, 1, 2, 13, 10, 255, 254, 0x27, 0x40, 0])],
    ["text starting with @", Buffer.from("@/etc/passwd")],
    ["a 200 KiB body", Buffer.from(randomBytes(100 * 1024).toString("hex"))],
  ];
  for (const [what, body] of bodies) {
    it(`byte for byte: ${what}`, async () => {
      const org = await createOrganizationFixture();
      const endpoint = await createEndpointFixture(org.ctx, destination.url);
      const headers = { "content-type": "application/octet-stream", "user-agent": "Stripe/1.0", "x-custom": "a 'b' \"c\"", "stripe-signature": "t=1,v1=abc" };
      const delivery = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, body, headers });
      const byWorker = await until("the worker's attempt", () => destination.requests.find((r) => r.headers["x-inbox-delivery-id"] === delivery.id));

      const { command, signedAt } = await getDeliveryCurl({ ctx: org.ctx, input: { id: delivery.id } });
      expect(command).toContain("--data-binary");
      expect(signedAt).toBeNull();
      const byCurl = await runCurl(command);
      expect(byCurl.body.equals(body)).toBe(true);
      expect(byWorker.body.equals(body)).toBe(true);
      expect(byCurl.method).toBe("POST");
      expect(byCurl.url).toBe(byWorker.url);
      expect(comparable(byCurl)).toEqual(comparable(byWorker));
    });
  }

  it("leaves out curl's own headers when the delivery had none of them", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, destination.url);
    const delivery = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, body: "plain", headers: { "x-only": "1" }, enqueue: false });
    const byCurl = await runCurl((await getDeliveryCurl({ ctx: org.ctx, input: { id: delivery.id } })).command);
    expect(Object.keys(byCurl.headers).sort()).toEqual(["content-length", "host", "x-inbox-attempt", "x-inbox-delivery-id", "x-inbox-destination-id", "x-only"]);
    expect(byCurl.headers["x-inbox-attempt"]).toBe("1");
  });

  it("signs with the endpoint's outbound secret at the time the command is made", async () => {
    const org = await createOrganizationFixture();
    const outboundSecret = generateWebhookSecret();
    const endpoint = await createEndpointFixture(org.ctx, destination.url, { outboundSecret });
    const body = JSON.stringify({ type: "order.created" });
    const delivery = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, body, enqueue: false });
    const { command, signedAt } = await getDeliveryCurl({ ctx: org.ctx, input: { id: delivery.id } });
    expect(signedAt).not.toBeNull();
    expect(command).not.toContain(outboundSecret);
    const byCurl = await runCurl(command);
    const verified = new Webhook(outboundSecret).verify(byCurl.body.toString("utf8"), byCurl.headers as Record<string, string>);
    expect(verified).toEqual({ type: "order.created" });
    expect(byCurl.headers["webhook-id"]).toBe(delivery.id);
  });

  it("is not found for another organization", async () => {
    const owner = await createOrganizationFixture();
    const stranger = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(owner.ctx, destination.url);
    const delivery = await createDeliveryFixture({ ctx: owner.ctx, endpointId: endpoint.id, enqueue: false });
    await expect(getDeliveryCurl({ ctx: stranger.ctx, input: { id: delivery.id } })).rejects.toBeInstanceOf(NotFoundError);
  });
});
