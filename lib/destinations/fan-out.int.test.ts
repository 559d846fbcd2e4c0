// #43: an endpoint stores a request once and hands it to each destination whose filter matches, each on its own
// lane. One failing, one paused and one filtered out: the other two get the exact bytes once each, and another
// organization's endpoint is untouched. Replay and bury per destination and for all; a request no filter
// matched is stored `filtered`, and a replay after a filter change routes it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import * as replayRoute from "@/app/api/v1/deliveries/[id]/replay/route";
import * as bulkReplayRoute from "@/app/api/v1/deliveries/replay/route";
import * as buryRoute from "@/app/api/v1/deliveries/[id]/bury/route";
import * as deliveryRoute from "@/app/api/v1/deliveries/[id]/route";
import * as deliveriesRoute from "@/app/api/v1/deliveries/route";
import { deliverTask } from "@/jobs/deliver";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { forgetEndpoint } from "@/lib/endpoints/endpoint-cache";
import { newDestinationId } from "@/lib/destinations/destination-ids";
import { useTestDatabase } from "@/test/db";
import { startDestination, startTestWorker, until, type Destination } from "@/test/delivery-fixtures";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { postIngest, standardWebhooksHeaders } from "@/test/ingest-requests";

useTestDatabase();

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let acme: Org;
let other: Org;
let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
const servers: Destination[] = [];
let ok: Destination;
let failing: Destination;
let endpoint: { id: string; secret: string };
const lanes: Record<"ok" | "ok2" | "failing" | "paused" | "picky", string> = { ok: "", ok2: "", failing: "", paused: "", picky: "" };

async function addDestination(name: string, url: string, fields: { paused?: boolean; filter?: unknown } = {}): Promise<string> {
  const id = newDestinationId();
  await getSql()`insert into destinations (id, organization_id, endpoint_id, name, url, paused, filter, max_attempts, retry_base_seconds)
    values (${id}, ${acme.organizationId}, ${endpoint.id}, ${name}, ${url}, ${fields.paused ?? false}, ${fields.filter === undefined ? null : getSql().json(fields.filter as never)}, 8, 60)`;
  forgetEndpoint(endpoint.id);
  return id;
}

const send = async (id: string, payload: unknown) => {
  const body = JSON.stringify(payload);
  const answer = await postIngest(endpoint.id, body, standardWebhooksHeaders(endpoint.secret, body, id));
  expect(answer.status).toBe(200);
  return { id: answer.body.id as string, body };
};
const read = async (id: string, org = acme) => (await callRoute(deliveryRoute.GET, { apiKey: org.apiKey, params: { id } })).body;
const receivedBy = (server: Destination, requestId: string) => server.requests.filter((r) => r.headers["x-inbox-delivery-id"] === requestId);

beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  process.env.DELIVERY_LOG = "problems";
  acme = await createOrganizationFixture("Acme");
  other = await createOrganizationFixture("Other");
  ok = await startDestination();
  failing = await startDestination((_request, response) => {
    response.statusCode = 500;
    response.end("down");
  });
  servers.push(ok, failing);
  const created = await createEndpoint({ ctx: acme.ctx, input: { name: "Stripe", provider: "standard-webhooks", destinationUrl: `${ok.url}/default` } });
  endpoint = { id: created.id, secret: created.secret! };
  lanes.ok = (await getSql()`select id from destinations where endpoint_id = ${endpoint.id} and is_default`)[0]!.id;
  lanes.ok2 = await addDestination("Analytics", `${ok.url}/analytics`);
  lanes.failing = await addDestination("Billing", `${failing.url}/billing`);
  lanes.paused = await addDestination("Warehouse", `${ok.url}/warehouse`, { paused: true });
  lanes.picky = await addDestination("Refunds", `${ok.url}/refunds`, { filter: { body: { type: { $startsWith: "refund." } } } });
  worker = await startTestWorker({ deliver: deliverTask });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await Promise.all(servers.map((s) => s.close()));
});

describe("fan-out to several destinations", () => {
  let invoice: { id: string; body: string };

  it("hands the request to each matching destination once, byte for byte, each on its own lane", async () => {
    // Another organization's endpoint, one destination, beside it.
    const theirs = await createEndpoint({ ctx: other.ctx, input: { name: "Theirs", provider: "standard-webhooks", destinationUrl: `${ok.url}/theirs` } });
    const theirBody = JSON.stringify({ type: "invoice.paid", id: "evt_theirs" });
    const theirAnswer = await postIngest(theirs.id, theirBody, standardWebhooksHeaders(theirs.secret!, theirBody));
    invoice = await send("msg_invoice_1", { type: "invoice.paid", id: "evt_1", data: { object: { customer: "cus_42", amount_due: 1200, email: "ana@example.com" } } });

    await until("both healthy destinations received it", () => receivedBy(ok, invoice.id).length >= 2);
    await until("the failing destination was tried", () => receivedBy(failing, invoice.id).length >= 1);
    await until("the other organization's delivery delivered", async () => (await read(theirAnswer.body.id, other)).status === "delivered");

    const atOk = receivedBy(ok, invoice.id);
    expect(atOk.map((r) => r.url).sort()).toEqual([new URL(`${ok.url}/analytics`).pathname, new URL(`${ok.url}/default`).pathname]);
    for (const request of atOk) expect(request.body.toString("utf8")).toBe(invoice.body);
    expect(atOk.map((r) => r.headers["x-inbox-destination-id"]).sort()).toEqual([lanes.ok, lanes.ok2].sort());
    expect(receivedBy(ok, invoice.id).filter((r) => r.url.endsWith("/warehouse") || r.url.endsWith("/refunds"))).toHaveLength(0);

    const item = await read(invoice.id);
    const byLane = Object.fromEntries(item.destinations.map((d: { destinationId: string; status: string }) => [d.destinationId, d.status]));
    expect(byLane).toEqual({ [lanes.ok]: "delivered", [lanes.ok2]: "delivered", [lanes.failing]: "pending", [lanes.paused]: "pending" });
    // The least settled of its destinations; attempts counted over all of them, each naming its destination.
    expect(item.status).toBe("pending");
    expect(item.attempts.map((a: { destinationId: string }) => a.destinationId)).toEqual(expect.arrayContaining([lanes.ok, lanes.ok2, lanes.failing]));
    expect(item.attemptCount).toBe(item.attempts.length);
    const [paused] = await getSql()`select parked_at from deliveries where destination_id = ${lanes.paused}`;
    expect(paused!.parked_at).not.toBeNull();
    // Stored once: one payload, one dedupe key, listed once.
    const [stored] = await getSql()`select (select count(*) from delivery_payloads where delivery_id = ${invoice.id})::int as payloads,
      (select count(*) from delivery_keys where delivery_id = ${invoice.id})::int as keys`;
    expect(stored).toEqual({ payloads: 1, keys: 1 });
    const listed = await callRoute(deliveriesRoute.GET, { apiKey: acme.apiKey, path: `/?endpointId=${endpoint.id}` });
    expect(listed.body.data.map((d: { id: string }) => d.id)).toEqual([invoice.id]);
    const byDestination = await callRoute(deliveriesRoute.GET, { apiKey: acme.apiKey, path: `/?destinationId=${lanes.failing}` });
    expect(byDestination.body.data.map((d: { id: string }) => d.id)).toEqual([invoice.id]);
  });

  it("replays one destination, and buries one or all", async () => {
    const before = receivedBy(ok, invoice.id).length;
    // Its dedupe key gone (as retention leaves a request replayed from a dropped week): the replay of a further
    // destination's row puts it back naming the request, not the row.
    await getSql()`delete from delivery_keys where delivery_id = ${invoice.id}`;
    const replayed = await callRoute(replayRoute.POST, { method: "POST", apiKey: acme.apiKey, params: { id: invoice.id }, body: { destinationId: lanes.ok2 } });
    expect(replayed.status).toBe(202);
    expect((await getSql()`select delivery_id from delivery_keys where endpoint_id = ${endpoint.id} and external_id = ${"msg_invoice_1"}`).map((r) => r.delivery_id)).toEqual([invoice.id]);
    await until("the replay reached the analytics destination", () => receivedBy(ok, invoice.id).length === before + 1);
    expect(receivedBy(ok, invoice.id).at(-1)!.url).toBe(new URL(`${ok.url}/analytics`).pathname);

    const buried = await callRoute(buryRoute.POST, { method: "POST", apiKey: acme.apiKey, params: { id: invoice.id }, body: { destinationId: lanes.failing } });
    expect(buried.status).toBe(200);
    let item = await read(invoice.id);
    const status = (lane: string) => item.destinations.find((d: { destinationId: string }) => d.destinationId === lane).status;
    expect([status(lanes.failing), status(lanes.paused)]).toEqual(["dead", "pending"]);
    await callRoute(buryRoute.POST, { method: "POST", apiKey: acme.apiKey, params: { id: invoice.id } });
    item = await read(invoice.id);
    // Without one named, every destination's row (the REST API's bury moves a delivered one too, as for one destination).
    expect([status(lanes.failing), status(lanes.paused), status(lanes.ok), status(lanes.ok2)]).toEqual(["dead", "dead", "dead", "dead"]);
    expect(item.status).toBe("dead");
    // Another organization's key sees nothing of it, and changes nothing.
    expect((await callRoute(replayRoute.POST, { method: "POST", apiKey: other.apiKey, params: { id: invoice.id } })).status).toBe(404);
    expect((await callRoute(deliveryRoute.GET, { apiKey: other.apiKey, params: { id: invoice.id } })).status).toBe(404);
  });

  it("stores a request no destination takes as filtered, and a replay after a filter change routes it", async () => {
    await getSql()`update destinations set filter = ${getSql().json({ body: { type: { $eq: "never" } } })} where endpoint_id = ${endpoint.id}`;
    forgetEndpoint(endpoint.id);
    const refund = await send("msg_refund_1", { type: "refund.created", id: "evt_r1" });
    const item = await read(refund.id);
    expect(item).toMatchObject({ id: refund.id, status: "filtered", destinations: [], attemptCount: 0 });
    const [row] = await getSql()`select count(*)::int as n from deliveries where id = ${refund.id} or id like ${`${refund.id}:%`}`;
    expect(row!.n).toBe(1);
    // A bulk replay counts (and would replay) no filtered row: that is a replay of its own delivery's to route.
    const dry = await callRoute(bulkReplayRoute.POST, { method: "POST", apiKey: acme.apiKey, path: "/?dryRun=true", body: { endpointId: endpoint.id } });
    const [replayable] = await getSql()`select count(*)::int as n from deliveries where endpoint_id = ${endpoint.id} and status not in ('delivering', 'filtered')`;
    expect(dry.body.count).toBe(replayable!.n);
    // Filters change: the picky destination now takes refunds, and so does the paused one (which holds it).
    await getSql()`update destinations set filter = ${getSql().json({ body: { type: { $startsWith: "refund." } } })} where id in (${lanes.picky}, ${lanes.paused})`;
    forgetEndpoint(endpoint.id);
    const replayed = await callRoute(replayRoute.POST, { method: "POST", apiKey: acme.apiKey, params: { id: refund.id } });
    expect(replayed.status).toBe(202);
    await until("the refund reached the refunds destination", () => receivedBy(ok, refund.id).some((r) => r.url.endsWith("/refunds")));
    const routed = await read(refund.id);
    expect(routed.destinations.map((d: { destinationId: string }) => d.destinationId).sort()).toEqual([lanes.paused, lanes.picky].sort());
    expect(receivedBy(ok, refund.id)).toHaveLength(1);
    expect(receivedBy(ok, refund.id)[0]!.body.toString("utf8")).toBe(refund.body);
  });

  it("keeps a request's payload and key while any of its rows is kept, and removes them with its last", async () => {
    await getSql()`update destinations set filter = null where endpoint_id = ${endpoint.id}`;
    forgetEndpoint(endpoint.id);
    const sent = await send("msg_invoice_2", { type: "invoice.created", id: "evt_2" });
    const counts = async () => (await getSql()`select
        (select count(*) from deliveries where id = ${sent.id} or id like ${`${sent.id}:%`})::int as rows,
        (select count(*) from delivery_payloads where delivery_id = ${sent.id})::int as payloads,
        (select count(*) from delivery_keys where delivery_id = ${sent.id})::int as keys`)[0];
    const before = await counts();
    expect(before!.rows).toBeGreaterThan(1);
    // Retention removes rows one by one: the request's own row first, then the others.
    await getSql()`delete from deliveries where id = ${sent.id}`;
    expect(await counts()).toEqual({ rows: before!.rows - 1, payloads: 1, keys: 1 });
    await getSql()`delete from deliveries where id like ${`${sent.id}:%`}`;
    expect(await counts()).toEqual({ rows: 0, payloads: 0, keys: 0 });
  });
});
