import { beforeAll, describe, expect, it } from "vitest";
import * as ingestRoute from "@/app/in/[endpointId]/route";
import * as list from "@/app/api/v1/deliveries/route";
import * as item from "@/app/api/v1/deliveries/[id]/route";
import * as stats from "@/app/api/v1/endpoints/[id]/stats/route";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
let other: Awaited<ReturnType<typeof createOrganizationFixture>>;
let orders: string;
let refunds: string;
const ids: Record<string, string> = {};

async function send(endpointId: string, body: string | Uint8Array<ArrayBuffer>, eventId: string) {
  const request = new Request(`http://inbox.test/in/${endpointId}`, { method: "POST", body, headers: { "webhook-id": eventId } });
  const response = await ingestRoute.POST(request, { params: Promise.resolve({ endpointId }) });
  const json = await response.json();
  expect(response.status).toBe(200);
  ids[eventId] = json.id;
  return json.id as string;
}

beforeAll(async () => {
  org = await createOrganizationFixture();
  other = await createOrganizationFixture("Other");
  orders = (await createEndpoint({ ctx: org.ctx, input: { name: "Orders", provider: "none", destinationUrl: "http://127.0.0.1:9/" } })).id;
  refunds = (await createEndpoint({ ctx: org.ctx, input: { name: "Refunds", provider: "none", destinationUrl: "http://127.0.0.1:9/" } })).id;
  for (let i = 0; i < 5; i++) await send(orders, JSON.stringify({ type: "order.created", n: i, note: i === 3 ? "needle-in-body" : "hay" }), `evt_order_${i}`);
  await send(refunds, JSON.stringify({ type: "refund.issued" }), "evt_refund_0");
  await send(refunds, new Uint8Array([0xff, 0xfe, 0x00, 0x01]), "evt_binary");
  await getSql()`update deliveries set status = 'dead', last_error = 'HTTP 400' where id = ${ids.evt_order_1!}`;
});

const get = (path: string, apiKey = org.apiKey) => callRoute(list.GET, { apiKey, path });

describe("GET /api/v1/deliveries", () => {
  it("lists newest first and pages through every delivery exactly once", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await get(`/?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((d: { id: string }) => d.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(Object.values(ids).reverse());
  });

  it("filters by endpoint, status, event type and time, and searches the body", async () => {
    const byEndpoint = await get(`/?endpointId=${refunds}`);
    expect(byEndpoint.body.data.map((d: { externalId: string }) => d.externalId)).toEqual(["evt_binary", "evt_refund_0"]);
    const dead = await get("/?status=dead");
    expect(dead.body.data).toHaveLength(1);
    expect(dead.body.data[0]).toMatchObject({ id: ids.evt_order_1, status: "dead", lastError: "HTTP 400", endpointId: orders });
    const typed = await get("/?eventType=refund.issued");
    expect(typed.body.data.map((d: { id: string }) => d.id)).toEqual([ids.evt_refund_0]);
    const search = await get("/?q=needle-in-body");
    expect(search.body.data.map((d: { id: string }) => d.id)).toEqual([ids.evt_order_3]);
    const byExternalId = await get("/?q=evt_order_2");
    expect(byExternalId.body.data.map((d: { id: string }) => d.id)).toEqual([ids.evt_order_2]);
    const future = await get(`/?since=${new Date(Date.now() + 60_000).toISOString()}`);
    expect(future.body.data).toEqual([]);
    const past = await get(`/?until=${new Date(Date.now() + 60_000).toISOString()}&limit=200`);
    expect(past.body.data).toHaveLength(7);
  });

  it("answers 400 for a bad filter and 401 without a key", async () => {
    expect((await get("/?status=lost")).status).toBe(400);
    expect((await get("/?since=yesterday")).body.error.message).toMatch(/ISO 8601/);
    expect((await get("/?cursor=garbage")).status).toBe(400);
    expect((await callRoute(list.GET, { apiKey: null })).status).toBe(401);
  });

  it("shows another organization nothing", async () => {
    expect((await get("/", other.apiKey)).body.data).toEqual([]);
  });
});

describe("GET /api/v1/deliveries/:id", () => {
  it("returns headers, the body as text, and attempts", async () => {
    const res = await callRoute(item.GET, { apiKey: org.apiKey, params: { id: ids.evt_order_3! } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: ids.evt_order_3, externalId: "evt_order_3", eventType: "order.created", status: "pending", attempts: [], bodyEncoding: "utf8" });
    expect(JSON.parse(res.body.body).note).toBe("needle-in-body");
    expect(res.body.headers["webhook-id"]).toBe("evt_order_3");
  });

  it("returns a binary body as base64", async () => {
    const res = await callRoute(item.GET, { apiKey: org.apiKey, params: { id: ids.evt_binary! } });
    expect(res.body.bodyEncoding).toBe("base64");
    expect(Buffer.from(res.body.body, "base64")).toEqual(Buffer.from([0xff, 0xfe, 0x00, 0x01]));
  });

  it("answers 404 for another organization's delivery", async () => {
    const res = await callRoute(item.GET, { apiKey: other.apiKey, params: { id: ids.evt_order_0! } });
    expect(res.status).toBe(404);
  });
});

describe("GET /api/v1/endpoints/:id/stats", () => {
  it("counts by status and reports the oldest pending age", async () => {
    await getSql()`update deliveries set received_at = now() - interval '90 seconds', pending_since = now() - interval '90 seconds' where id = ${ids.evt_order_0!}`;
    const res = await callRoute(stats.GET, { apiKey: org.apiKey, params: { id: orders } });
    expect(res.body).toMatchObject({ pending: 4, delivering: 0, delivered: 0, dead: 1, receivedLastHour: 5, deliveredLastHour: 0 });
    expect(res.body.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(90);
    expect(res.body.oldestPendingAgeSeconds).toBeLessThan(120);
  });
});
