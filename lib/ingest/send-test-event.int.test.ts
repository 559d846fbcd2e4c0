// POST /endpoints/{id}/test-event (API.md, issue #47 point 12): a synthetic delivery that goes the way a received
// one goes — stored by the group commit, routed by the destinations' filters, delivered by the worker, signed
// outbound — marked `test: true` in its item and audited; a viewer may not send one, nor anyone another
// organization's.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { getSql } from "@/db";
import * as testEventRoute from "@/app/api/v1/endpoints/[id]/test-event/route";
import * as deliveryRoute from "@/app/api/v1/deliveries/[id]/route";
import * as deliveriesRoute from "@/app/api/v1/deliveries/route";
import * as auditRoute from "@/app/api/v1/audit-log/route";
import { deliverTask } from "@/jobs/deliver";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { forgetEndpoint } from "@/lib/endpoints/endpoint-cache";
import { newDestinationId } from "@/lib/destinations/destination-ids";
import { useTestDatabase } from "@/test/db";
import { startDestination, startTestWorker, until, type Destination } from "@/test/delivery-fixtures";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { postIngest } from "@/test/ingest-requests";

useTestDatabase();

let acme: Awaited<ReturnType<typeof createOrganizationFixture>>;
let other: Awaited<ReturnType<typeof createOrganizationFixture>>;
let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
let server: Destination;
let endpointId: string;
const outboundSecret = `whsec_${randomBytes(32).toString("base64")}`;

const send = (id: string, body?: unknown, apiKey = acme.apiKey) =>
  callRoute(testEventRoute.POST, { method: "POST", apiKey, params: { id }, body });
const at = (path: string) => server.requests.filter((r) => r.url.endsWith(path));

beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  process.env.DELIVERY_LOG = "problems";
  acme = await createOrganizationFixture("Acme");
  other = await createOrganizationFixture("Other");
  server = await startDestination();
  const endpoint = await createEndpoint({ ctx: acme.ctx, input: { name: "Payments", provider: "none", destinationUrl: `${server.url}/default`, outboundSecret } });
  endpointId = endpoint.id;
  // A second destination that takes invoices only: a test event goes where its type is wanted, as a real one would.
  await getSql()`insert into destinations (id, organization_id, endpoint_id, name, url, filter, max_attempts, retry_base_seconds)
    values (${newDestinationId()}, ${acme.organizationId}, ${endpointId}, 'Invoices', ${`${server.url}/invoices`},
      ${getSql().json({ body: { type: { $startsWith: "invoice." } } } as never)}, 8, 60)`;
  forgetEndpoint(endpointId);
  worker = await startTestWorker({ deliver: deliverTask });
}, 60_000);

afterAll(async () => {
  await worker?.stop();
  await server?.close();
});

describe("POST /endpoints/{id}/test-event", () => {
  it("stores an inbox.test delivery that the worker delivers, signed outbound, marked test", async () => {
    const answer = await send(endpointId);
    expect(answer.status).toBe(202);
    expect(answer.body.id).toMatch(/^dlv_/);
    const id = answer.body.id as string;

    await until("the default destination received it", () => at("/default").some((r) => r.headers["x-inbox-delivery-id"] === id));
    const received = at("/default").find((r) => r.headers["x-inbox-delivery-id"] === id)!;
    const body = received.body.toString("utf8");
    expect(JSON.parse(body)).toMatchObject({ type: "inbox.test", id, test: true });
    // Signed like every delivery of this destination: the Standard Webhooks SDK verifies it with the outbound secret.
    const headers = Object.fromEntries(Object.entries(received.headers).map(([name, value]) => [name, String(value)]));
    expect(() => new Webhook(outboundSecret).verify(body, headers)).not.toThrow();
    // The invoices-only destination's filter did not take it.
    expect(at("/invoices")).toHaveLength(0);

    await until("delivered", async () => (await callRoute(deliveryRoute.GET, { apiKey: acme.apiKey, params: { id } })).body.status === "delivered");
    const item = (await callRoute(deliveryRoute.GET, { apiKey: acme.apiKey, params: { id } })).body;
    expect(item).toMatchObject({ id, endpointId, eventType: "inbox.test", test: true, externalId: id });
    const listed = await callRoute(deliveriesRoute.GET, { apiKey: acme.apiKey, path: `/?endpointId=${endpointId}` });
    expect(listed.body.data.find((d: { id: string }) => d.id === id)).toMatchObject({ test: true });

    const audit = await callRoute(auditRoute.GET, { apiKey: acme.apiKey, path: "/?action=endpoint.test_event_sent" });
    expect(audit.body.data[0]).toMatchObject({ action: "endpoint.test_event_sent", target: { type: "endpoint", id: endpointId }, details: { deliveryId: id, eventType: "inbox.test" } });
  });

  it("takes a named event type, routed by the filters as a real one: the invoices destination gets it too", async () => {
    const answer = await send(endpointId, { eventType: "invoice.paid" });
    expect(answer.status).toBe(202);
    const id = answer.body.id as string;
    await until("both destinations received it", () =>
      at("/default").some((r) => r.headers["x-inbox-delivery-id"] === id) && at("/invoices").some((r) => r.headers["x-inbox-delivery-id"] === id));
    expect(JSON.parse(at("/invoices")[0]!.body.toString("utf8"))).toMatchObject({ type: "invoice.paid", test: true });
  });

  it("leaves received deliveries unmarked", async () => {
    const answer = await postIngest(endpointId, JSON.stringify({ type: "invoice.paid" }), { "content-type": "application/json" });
    expect(answer.status).toBe(200);
    const item = (await callRoute(deliveryRoute.GET, { apiKey: acme.apiKey, params: { id: answer.body.id } })).body;
    expect(item.test).toBe(false);
  });

  it("refuses a viewer (403), another organization (404), and a bad event type (400), storing nothing", async () => {
    const { apiKey: viewerKey } = await createApiKey({ ctx: acme.ctx, input: { name: "viewer", role: "viewer" } });
    const [before] = await getSql()`select count(*)::int as n from deliveries where endpoint_id = ${endpointId}`;
    expect((await send(endpointId, undefined, viewerKey)).status).toBe(403);
    expect((await send(endpointId, undefined, other.apiKey)).status).toBe(404);
    expect((await send(endpointId, { eventType: "" })).status).toBe(400);
    expect((await send(endpointId, { eventType: 42 })).status).toBe(400);
    expect((await send(endpointId, { unknown: true })).status).toBe(400);
    const [after] = await getSql()`select count(*)::int as n from deliveries where endpoint_id = ${endpointId}`;
    expect(after!.n).toBe(before!.n);
  });
});
