// #43: a destination's orderingKey: deliveries with the same value go one at a time in order of receipt; a later
// one waits while an earlier one is pending or retrying, a buried one releases the next, and other values flow.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as buryRoute from "@/app/api/v1/deliveries/[id]/bury/route";
import * as destinationRoute from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/route";
import { getSql } from "@/db";
import { deliverTask } from "@/jobs/deliver";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { startDestination, startTestWorker, until, type Destination } from "@/test/delivery-fixtures";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { postIngest, standardWebhooksHeaders } from "@/test/ingest-requests";

useTestDatabase();

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
let endpoint: { id: string; secret: string };
let server: Destination;
let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
/** Event ids the destination refuses (500) on their first attempt, and those it refuses always. */
const failOnce = new Set<string>();
const failAlways = new Set<string>();
const arrivals: { id: string; status: number }[] = [];

const send = async (id: string, customer: string) => {
  const body = JSON.stringify({ id, type: "charge.updated", data: { customer, amount: 1250, email: `${customer}@example.com` } });
  const answer = await postIngest(endpoint.id, body, standardWebhooksHeaders(endpoint.secret, body));
  expect(answer.status).toBe(200);
  return answer.body.id as string;
};
const arrivedAt = (id: string, status = 200) => arrivals.findIndex((a) => a.id === id && a.status === status);

beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  process.env.DELIVERY_LOG = "problems";
  org = await createOrganizationFixture("Ordered");
  server = await startDestination((request, response) => {
    const { id } = JSON.parse(request.body.toString("utf8")) as { id: string };
    const refuse = failAlways.has(id) || (failOnce.has(id) && request.headers["x-inbox-attempt"] === "1");
    arrivals.push({ id, status: refuse ? 500 : 200 });
    response.statusCode = refuse ? 500 : 200;
    response.end(refuse ? "not now" : "ok");
  });
  const created = await createEndpoint({ ctx: org.ctx, input: { name: "Billing", provider: "standard-webhooks", destinationUrl: `${server.url}/billing`, retryBaseSeconds: 1 } });
  endpoint = { id: created.id, secret: created.secret! };
  const [lane] = await getSql()`select id from destinations where endpoint_id = ${endpoint.id} and is_default`;
  const keyed = await callRoute(destinationRoute.PATCH, { method: "PATCH", apiKey: org.apiKey, params: { id: endpoint.id, destinationId: lane!.id }, body: { orderingKey: "data.customer" } });
  expect(keyed.status).toBe(200);
  worker = await startTestWorker({ deliver: deliverTask });
});

afterAll(async () => {
  await worker?.stop();
  await server.close();
});

describe("ordering by key", () => {
  it("holds a customer's second event until its first, retried, succeeded, while another customer's flow", { timeout: 60_000 }, async () => {
    failOnce.add("evt_a1");
    await send("evt_a1", "cus_a");
    await send("evt_a2", "cus_a");
    await send("evt_b1", "cus_b");
    await send("evt_b2", "cus_b");
    await until("everything delivered", () => arrivedAt("evt_a2") >= 0 && arrivedAt("evt_b2") >= 0, 30_000);
    // A's first was refused once and retried about a second later; A's second came only after it succeeded.
    expect(arrivedAt("evt_a1", 500)).toBeGreaterThanOrEqual(0);
    expect(arrivedAt("evt_a2")).toBeGreaterThan(arrivedAt("evt_a1"));
    expect(arrivals.filter((a) => a.id === "evt_a2")).toHaveLength(1);
    // B did not wait for A's retry, and kept its own order.
    expect(arrivedAt("evt_b1")).toBeLessThan(arrivedAt("evt_a1"));
    expect(arrivedAt("evt_b2")).toBeGreaterThan(arrivedAt("evt_b1"));
  });

  it("releases the next when the earlier one is buried", { timeout: 60_000 }, async () => {
    failAlways.add("evt_c1");
    const first = await send("evt_c1", "cus_c");
    const second = await send("evt_c2", "cus_c");
    await until("the first tried", () => arrivedAt("evt_c1", 500) >= 0, 20_000);
    // Waiting behind it: parked (no job, nothing sent) while the first waits for its retry.
    await until("the second parked behind it", async () => (await getSql()`select parked_at from deliveries where id = ${second}`)[0]?.parked_at);
    expect(arrivedAt("evt_c2")).toBe(-1);
    const buried = await callRoute(buryRoute.POST, { method: "POST", apiKey: org.apiKey, params: { id: first } });
    expect(buried.status).toBe(200);
    await until("the second delivered once the first was buried", () => arrivedAt("evt_c2") >= 0, 20_000);
    expect(arrivals.filter((a) => a.id === "evt_c1" && a.status === 200)).toHaveLength(0);
  });
});
