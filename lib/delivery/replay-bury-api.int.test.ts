// Replay and bury through the REST API, single and bulk. No worker runs here: the jobs stay queued,
// so what each call enqueued or cancelled can be read back.
import { beforeAll, describe, expect, it } from "vitest";
import * as buryOne from "@/app/api/v1/deliveries/[id]/bury/route";
import * as replayOne from "@/app/api/v1/deliveries/[id]/replay/route";
import * as buryMany from "@/app/api/v1/deliveries/bury/route";
import * as replayMany from "@/app/api/v1/deliveries/replay/route";
import { getSql } from "@/db";
import { PRIORITY } from "@/lib/queue/job-registry";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.DELIVERY_LOG = "problems";

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let acme: Org;
let globex: Org;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
});

/** The deliver jobs waiting for these deliveries (keyed or not). */
async function jobsOf(ids: string[]) {
  return getSql()<{ key: string | null; priority: number; payload: { trigger: string } }[]>`
    select key, priority, payload from graphile_worker._private_jobs where payload->>'deliveryId' = any(${ids})`;
}

async function statusOf(ids: string[]): Promise<Record<string, string>> {
  const rows = await getSql()<{ id: string; status: string }[]>`select id, status from deliveries where id = any(${ids})`;
  return Object.fromEntries(rows.map((row) => [row.id, row.status]));
}

const post = (handler: Parameters<typeof callRoute>[0], apiKey: string, path: string, options: { id?: string; body?: unknown } = {}) =>
  callRoute(handler, { method: "POST", apiKey, path, params: options.id ? { id: options.id } : {}, body: options.body });

describe("POST /deliveries/:id/replay", () => {
  it("puts a dead delivery back to pending with a replay job in the replay lane (202)", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/hook");
    const { id } = await createDeliveryFixture({ ctx: acme.ctx, endpointId: endpoint.id, status: "dead", enqueue: false });
    await getSql()`update deliveries set attempt_count = 3, auto_attempt_count = 3, last_error = 'HTTP 500' where id = ${id}`;
    const res = await post(replayOne.POST, acme.apiKey, `/api/v1/deliveries/${id}/replay`, { id });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id, status: "pending" });
    const [row] = await getSql()`select status, auto_attempt_count, attempt_count from deliveries where id = ${id}`;
    expect(row).toMatchObject({ status: "pending", auto_attempt_count: 0, attempt_count: 3 });
    expect(await jobsOf([id])).toEqual([expect.objectContaining({ priority: PRIORITY.replay, payload: expect.objectContaining({ trigger: "replay" }) })]);
  });

  it("replaces a scheduled retry instead of adding a second job", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/hook");
    const { id } = await createDeliveryFixture({ ctx: acme.ctx, endpointId: endpoint.id });
    await post(replayOne.POST, acme.apiKey, `/api/v1/deliveries/${id}/replay`, { id });
    const jobs = await jobsOf([id]);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]!.payload.trigger).toBe("replay");
  });

  it("answers 409 while an attempt is in flight", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/hook");
    const { id } = await createDeliveryFixture({ ctx: acme.ctx, endpointId: endpoint.id, enqueue: false });
    await getSql()`update deliveries set status = 'delivering' where id = ${id}`;
    const res = await post(replayOne.POST, acme.apiKey, `/api/v1/deliveries/${id}/replay`, { id });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe("attempt_in_flight");
  });

  it("answers 404 for another organization's delivery, an unknown id, and 401 without a key", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/hook");
    const { id } = await createDeliveryFixture({ ctx: acme.ctx, endpointId: endpoint.id, status: "dead", enqueue: false });
    expect((await post(replayOne.POST, globex.apiKey, `/api/v1/deliveries/${id}/replay`, { id })).status).toBe(404);
    expect((await post(replayOne.POST, acme.apiKey, "/api/v1/deliveries/dlv_nope/replay", { id: "dlv_nope" })).status).toBe(404);
    expect((await callRoute(replayOne.POST, { method: "POST", params: { id } })).status).toBe(401);
    expect((await statusOf([id]))[id]).toBe("dead");
  });
});

describe("POST /deliveries/:id/bury", () => {
  it("moves a pending delivery to dead and cancels its job (200); burying again changes nothing", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/hook");
    const { id } = await createDeliveryFixture({ ctx: acme.ctx, endpointId: endpoint.id });
    expect(await jobsOf([id])).toHaveLength(1);
    const res = await post(buryOne.POST, acme.apiKey, `/api/v1/deliveries/${id}/bury`, { id });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, status: "dead" });
    expect(await jobsOf([id])).toHaveLength(0);
    const [row] = await getSql()`select status, last_error, updated_at from deliveries where id = ${id}`;
    expect(row).toMatchObject({ status: "dead", last_error: "buried on request" });
    const again = await post(buryOne.POST, acme.apiKey, `/api/v1/deliveries/${id}/bury`, { id });
    expect(again.status).toBe(200);
    const [after] = await getSql()`select updated_at from deliveries where id = ${id}`;
    expect(after!.updated_at).toEqual(row!.updated_at);
  });

  it("answers 404 for another organization's delivery", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/hook");
    const { id } = await createDeliveryFixture({ ctx: acme.ctx, endpointId: endpoint.id });
    expect((await post(buryOne.POST, globex.apiKey, `/api/v1/deliveries/${id}/bury`, { id })).status).toBe(404);
    expect((await statusOf([id]))[id]).toBe("pending");
  });
});

describe("bulk replay touches exactly what the filter names", () => {
  it("counts on a dry run without acting, then replays only the matching deliveries", async () => {
    const a = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/a");
    const b = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/b");
    const make = async (endpointId: string, status: "dead" | "delivered" | "pending", eventType: string, receivedAt: string, ctx = acme.ctx) =>
      (await createDeliveryFixture({ ctx, endpointId, status, eventType, receivedAt: new Date(receivedAt), enqueue: false })).id;
    const named = [
      await make(a.id, "dead", "invoice.paid", "2026-11-01T10:00:00Z"),
      await make(a.id, "dead", "invoice.paid", "2026-11-01T11:00:00Z"),
      await make(a.id, "dead", "invoice.paid", "2026-11-01T12:00:00Z"),
    ];
    const others = [
      await make(a.id, "dead", "invoice.paid", "2026-10-31T23:59:59Z"), // before `since`
      await make(a.id, "dead", "invoice.paid", "2026-11-02T00:00:01Z"), // after `until`
      await make(a.id, "dead", "invoice.failed", "2026-11-01T10:30:00Z"), // other event type
      await make(a.id, "delivered", "invoice.paid", "2026-11-01T10:30:00Z"), // other status
      await make(b.id, "dead", "invoice.paid", "2026-11-01T10:30:00Z"), // other endpoint
    ];
    const globexEndpoint = await createEndpointFixture(globex.ctx, "http://127.0.0.1:9/g");
    others.push(await make(globexEndpoint.id, "dead", "invoice.paid", "2026-11-01T10:30:00Z", globex.ctx));
    const filter = { endpointId: a.id, status: "dead", eventType: "invoice.paid", since: "2026-11-01T00:00:00Z", until: "2026-11-02T00:00:00Z" };

    const dry = await post(replayMany.POST, acme.apiKey, "/api/v1/deliveries/replay?dryRun=true", { body: filter });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({ count: 3 });
    expect(Object.values(await statusOf(named))).toEqual(["dead", "dead", "dead"]);
    expect(await jobsOf(named)).toHaveLength(0);

    const res = await post(replayMany.POST, acme.apiKey, "/api/v1/deliveries/replay", { body: filter });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ count: 3 });
    expect(await statusOf(named)).toEqual(Object.fromEntries(named.map((id) => [id, "pending"])));
    const jobs = await jobsOf(named);
    expect(jobs).toHaveLength(3);
    for (const job of jobs) expect(job).toMatchObject({ priority: PRIORITY.replay, payload: expect.objectContaining({ trigger: "replay" }) });
    const otherStatus = await statusOf(others);
    expect(others.map((id) => otherStatus[id])).toEqual(["dead", "dead", "dead", "delivered", "dead", "dead"]);
    expect(await jobsOf(others)).toHaveLength(0);
  });

  it("never replays a delivery with an attempt in flight", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/c");
    const { id } = await createDeliveryFixture({ ctx: acme.ctx, endpointId: endpoint.id, enqueue: false });
    await getSql()`update deliveries set status = 'delivering' where id = ${id}`;
    const res = await post(replayMany.POST, acme.apiKey, "/api/v1/deliveries/replay", { body: { endpointId: endpoint.id } });
    expect(res.body).toEqual({ count: 0 });
  });

  it("replays thousands in chunks, each with its job", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/many");
    await getSql()`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes)
      select 'dlv_bulk_' || n, ${acme.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), 'evt_' || n, 'dead', 2
      from generate_series(1, 2500) n`;
    const res = await post(replayMany.POST, acme.apiKey, "/api/v1/deliveries/replay", { body: { endpointId: endpoint.id, status: "dead" } });
    expect(res.body).toEqual({ count: 2500 });
    const [jobs] = await getSql()`select count(*)::int as n from graphile_worker._private_jobs where payload->>'deliveryId' like 'dlv_bulk_%'`;
    expect(jobs!.n).toBe(2500);
  });

  it("refuses a misspelt field, a bad status or time, and another organization's endpoint", async () => {
    const misspelt = await post(replayMany.POST, acme.apiKey, "/api/v1/deliveries/replay", { body: { endpoint_id: "ep_x" } });
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.error.message).toMatch(/Unknown field/);
    expect((await post(replayMany.POST, acme.apiKey, "/api/v1/deliveries/replay", { body: { status: "lost" } })).status).toBe(400);
    expect((await post(replayMany.POST, acme.apiKey, "/api/v1/deliveries/replay", { body: { since: "yesterday" } })).status).toBe(400);
    expect((await post(replayMany.POST, acme.apiKey, "/api/v1/deliveries/replay?dryRun=maybe", { body: {} })).status).toBe(400);
    const globexEndpoint = await createEndpointFixture(globex.ctx, "http://127.0.0.1:9/g");
    expect((await post(replayMany.POST, acme.apiKey, "/api/v1/deliveries/replay", { body: { endpointId: globexEndpoint.id } })).status).toBe(404);
  });
});

describe("bulk bury touches exactly what the filter names", () => {
  it("counts on a dry run, then buries the matching ones and cancels their jobs", async () => {
    const endpoint = await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/d");
    const pending = [
      (await createDeliveryFixture({ ctx: acme.ctx, endpointId: endpoint.id, eventType: "order.created" })).id,
      (await createDeliveryFixture({ ctx: acme.ctx, endpointId: endpoint.id, eventType: "order.created" })).id,
    ];
    const other = (await createDeliveryFixture({ ctx: acme.ctx, endpointId: endpoint.id, eventType: "order.updated" })).id;
    const filter = { endpointId: endpoint.id, eventType: "order.created" };

    const dry = await post(buryMany.POST, acme.apiKey, "/api/v1/deliveries/bury?dryRun=true", { body: filter });
    expect(dry).toMatchObject({ status: 200, body: { count: 2 } });
    expect(await jobsOf(pending)).toHaveLength(2);

    const res = await post(buryMany.POST, acme.apiKey, "/api/v1/deliveries/bury", { body: filter });
    expect(res).toMatchObject({ status: 200, body: { count: 2 } });
    expect(await statusOf([...pending, other])).toEqual({ [pending[0]!]: "dead", [pending[1]!]: "dead", [other]: "pending" });
    expect(await jobsOf(pending)).toHaveLength(0);
    expect(await jobsOf([other])).toHaveLength(1);

    // Already dead: nothing left to bury.
    expect((await post(buryMany.POST, acme.apiKey, "/api/v1/deliveries/bury", { body: filter })).body).toEqual({ count: 0 });
  });
});
