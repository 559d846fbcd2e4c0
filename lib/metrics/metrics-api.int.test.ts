// GET /api/metrics through its route handler, on a real database: the token gate, then the exposition text
// parsed back and checked against what was stored.
import { parseCrontab } from "graphile-worker";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import * as metricsRoute from "@/app/api/metrics/route";
import * as ingestRoute from "@/app/in/[endpointId]/route";
import { getSql } from "@/db";
import { crontab } from "@/jobs/crontab";
import { taskList } from "@/jobs/index";
import { deleteEndpoint } from "@/lib/endpoints/delete-endpoint";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { parseExposition, value } from "@/test/metrics-exposition";
import { rollUpDeliveryCounters } from "./roll-up-delivery-counters";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
const TOKEN = "metrics-token-for-tests-0123456789";

async function scrape(authorization: string | null = `Bearer ${TOKEN}`) {
  const request = new Request("http://inbox.test/api/metrics", { headers: authorization ? { authorization } : {} });
  const response = await metricsRoute.GET(request);
  return { status: response.status, headers: response.headers, text: await response.text() };
}

async function metrics() {
  const res = await scrape();
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parseExposition(res.text);
}

const setStatus = (id: string, status: string, attemptCount: number) =>
  getSql()`update deliveries set status = ${status}, attempt_count = ${attemptCount}, updated_at = now() where id = ${id}`;

let acme: Awaited<ReturnType<typeof createOrganizationFixture>>;
let globex: Awaited<ReturnType<typeof createOrganizationFixture>>;
let orders: string;
let quiet: string;
let billing: string;
const ids: string[] = [];

beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
  orders = (await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/hook")).id;
  quiet = (await createEndpointFixture(acme.ctx, "http://127.0.0.1:9/hook")).id;
  billing = (await createEndpointFixture(globex.ctx, "http://127.0.0.1:9/hook")).id;
  for (let i = 0; i < 6; i++) ids.push((await createDeliveryFixture({ ctx: acme.ctx, endpointId: orders, enqueue: false })).id);
  // orders: 1 delivered after 1 attempt, 1 after 3, 1 dead after 8, 1 delivering, 2 pending (one 120 s old).
  await setStatus(ids[0]!, "delivered", 1);
  await setStatus(ids[1]!, "delivered", 3);
  await setStatus(ids[2]!, "dead", 8);
  await setStatus(ids[3]!, "delivering", 1);
  await getSql()`update deliveries set received_at = now() - interval '120 seconds', pending_since = now() - interval '120 seconds' where id = ${ids[4]!}`;
  // billing (another organization): stored already delivered, after 2 attempts.
  const stored = await createDeliveryFixture({ ctx: globex.ctx, endpointId: billing, status: "delivered", enqueue: false });
  await getSql()`update deliveries set attempt_count = 2 where id = ${stored.id}`;
});

afterEach(() => {
  delete process.env.METRICS_TOKEN;
});

describe("GET /api/metrics is off without METRICS_TOKEN and needs the token with it", () => {
  it("answers 404 when METRICS_TOKEN is unset, whatever the request carries", async () => {
    expect((await scrape(null)).status).toBe(404);
    expect((await scrape(`Bearer ${TOKEN}`)).status).toBe(404);
  });

  it("answers 401 without the bearer token, with a wrong one, or another scheme", async () => {
    process.env.METRICS_TOKEN = TOKEN;
    for (const authorization of [null, "Bearer wrong", `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${TOKEN}`, "Bearer "]) {
      const res = await scrape(authorization);
      expect(res.status, String(authorization)).toBe(401);
      expect(res.text).not.toContain("inbox_");
    }
    expect((await scrape(`bearer ${TOKEN}`)).status).toBe(200);
  });
});

describe("GET /api/metrics reports what the database holds", () => {
  it("counts received, delivered and dead per endpoint, and the backlog now", async () => {
    process.env.METRICS_TOKEN = TOKEN;
    const m = await metrics();
    const o = { endpoint_id: orders, organization_id: acme.organizationId };
    const [stored] = await getSql()<{ received: string; pending: string; delivering: string }[]>`
      select count(*) as received, count(*) filter (where status = 'pending') as pending,
             count(*) filter (where status = 'delivering') as delivering
      from deliveries where endpoint_id = ${orders}`;
    expect(value(m, "inbox_deliveries_received_total", o)).toBe(Number(stored!.received));
    expect(value(m, "inbox_deliveries_received_total", o)).toBe(6);
    expect(value(m, "inbox_deliveries_delivered_total", o)).toBe(2);
    expect(value(m, "inbox_deliveries_dead_total", o)).toBe(1);
    expect(value(m, "inbox_deliveries_pending", o)).toBe(Number(stored!.pending));
    expect(value(m, "inbox_deliveries_pending", o)).toBe(2);
    expect(value(m, "inbox_deliveries_delivering", o)).toBe(1);
    const age = value(m, "inbox_deliveries_oldest_pending_age_seconds", o);
    expect(age).toBeGreaterThanOrEqual(120);
    expect(age).toBeLessThan(150);

    const q = { endpoint_id: quiet, organization_id: acme.organizationId };
    for (const name of ["inbox_deliveries_received_total", "inbox_deliveries_delivered_total", "inbox_deliveries_dead_total", "inbox_deliveries_pending", "inbox_deliveries_oldest_pending_age_seconds"]) {
      expect(value(m, name, q), name).toBe(0);
    }
    const b = { endpoint_id: billing, organization_id: globex.organizationId };
    expect(value(m, "inbox_deliveries_received_total", b)).toBe(1);
    expect(value(m, "inbox_deliveries_delivered_total", b)).toBe(1);

    expect(m.types.get("inbox_deliveries_received_total")).toBe("counter");
    expect(m.types.get("inbox_deliveries_pending")).toBe("gauge");
    expect(m.types.get("inbox_delivery_attempts")).toBe("histogram");
    expect(m.types.get("inbox_ingest_ack_seconds")).toBe("histogram");
    expect(m.helps.get("inbox_ingest_ack_seconds")).toMatch(/[Pp]er process/);
    for (const name of m.types.keys()) expect(m.helps.has(name), name).toBe(true);
  });

  it("keeps delivered and dead as counters: a replay does not take them back, delivering again adds one", async () => {
    process.env.METRICS_TOKEN = TOKEN;
    const o = { endpoint_id: orders, organization_id: acme.organizationId };
    await setStatus(ids[0]!, "pending", 1); // replayed
    await setStatus(ids[2]!, "pending", 8); // the dead one replayed too
    let m = await metrics();
    expect(value(m, "inbox_deliveries_delivered_total", o)).toBe(2);
    expect(value(m, "inbox_deliveries_dead_total", o)).toBe(1);
    expect(value(m, "inbox_deliveries_pending", o)).toBe(4);
    await setStatus(ids[0]!, "delivered", 4);
    await setStatus(ids[2]!, "delivered", 9);
    m = await metrics();
    expect(value(m, "inbox_deliveries_delivered_total", o)).toBe(4);
    expect(value(m, "inbox_deliveries_dead_total", o)).toBe(1);
    // Folding the events into totals changes nothing that is reported.
    expect(await rollUpDeliveryCounters()).toBeGreaterThanOrEqual(6);
    expect((await getSql()`select count(*)::int as n from delivery_counter_events`)[0]!.n).toBe(0);
    const folded = await metrics();
    // Not the oldest pending age: it reads the clock, and a second may pass between the two reads on a busy machine.
    const counted = (samples: typeof m.samples) => samples.filter((s) => s.name.startsWith("inbox_deliver") && s.name !== "inbox_deliveries_oldest_pending_age_seconds");
    expect(counted(folded.samples)).toEqual(counted(m.samples));
    expect(counted(m.samples).length).toBeGreaterThan(10);
  });

  it("histograms the attempts each delivery had made when it became delivered or dead", async () => {
    process.env.METRICS_TOKEN = TOKEN;
    const m = await metrics();
    const o = { endpoint_id: orders, organization_id: acme.organizationId };
    // Outcomes so far on orders: delivered after 1, 3, 4 and 9 attempts; dead after 8.
    const expected: Record<string, number> = { "1": 1, "2": 1, "3": 2, "4": 3, "5": 3, "6": 3, "8": 4, "10": 5, "15": 5, "25": 5, "50": 5, "+Inf": 5 };
    for (const [le, count] of Object.entries(expected)) expect(value(m, "inbox_delivery_attempts_bucket", { ...o, le }), `le=${le}`).toBe(count);
    expect(value(m, "inbox_delivery_attempts_count", o)).toBe(5);
    expect(value(m, "inbox_delivery_attempts_sum", o)).toBe(1 + 3 + 4 + 9 + 8);
    const b = { endpoint_id: billing, organization_id: globex.organizationId };
    // Stored as delivered with attempt_count 0, then given 2 attempts: the outcome counted its attempts when it happened.
    expect(value(m, "inbox_delivery_attempts_bucket", { ...b, le: "1" })).toBe(1);
    expect(value(m, "inbox_delivery_attempts_count", b)).toBe(1);
    expect(value(m, "inbox_delivery_attempts_sum", b)).toBe(0);
  });

  it("records the ack latency of each webhook ingest answers 200, in this process", async () => {
    process.env.METRICS_TOKEN = TOKEN;
    const before = await metrics();
    const countBefore = value(before, "inbox_ingest_ack_seconds_count", {});
    for (const id of ["evt_ack_1", "evt_ack_2", "evt_ack_1"]) {
      const request = new Request(`http://inbox.test/in/${quiet}`, { method: "POST", body: '{"type":"ack.test"}', headers: { "webhook-id": id } });
      expect((await ingestRoute.POST(request, { params: Promise.resolve({ endpointId: quiet }) })).status).toBe(200);
    }
    const refused = new Request("http://inbox.test/in/ep_missing", { method: "POST", body: "{}" });
    expect((await ingestRoute.POST(refused, { params: Promise.resolve({ endpointId: "ep_missing" }) })).status).toBe(404);
    const after = await metrics();
    // Two stored and one duplicate answered 200; the 404 is not an ack.
    expect(value(after, "inbox_ingest_ack_seconds_count", {})).toBe(countBefore + 3);
    expect(value(after, "inbox_ingest_ack_seconds_bucket", { le: "+Inf" })).toBe(countBefore + 3);
    expect(value(after, "inbox_ingest_ack_seconds_sum", {})).toBeGreaterThan(value(before, "inbox_ingest_ack_seconds_sum", {}));
    const buckets = after.samples.filter((s) => s.name === "inbox_ingest_ack_seconds_bucket").map((s) => s.value);
    expect(buckets).toEqual([...buckets].sort((a, b) => a - b));
    expect(value(after, "inbox_deliveries_received_total", { endpoint_id: quiet })).toBe(2);
  });

  it("drops a deleted endpoint's series", async () => {
    process.env.METRICS_TOKEN = TOKEN;
    await deleteEndpoint({ ctx: globex.ctx, input: { id: billing } });
    const m = await metrics();
    expect(m.samples.filter((s) => s.labels.endpoint_id === billing)).toEqual([]);
    expect(m.samples.some((s) => s.labels.endpoint_id === orders)).toBe(true);
    await rollUpDeliveryCounters();
    expect((await getSql()`select count(*)::int as n from delivery_counters where endpoint_id = ${billing}`)[0]!.n).toBe(0);
  });
});

describe("the worker folds outcome events every minute", () => {
  it("schedules roll-up-delivery-counters on every minute and knows the task", () => {
    const items = parseCrontab(crontab).filter((entry) => entry.task === "roll-up-delivery-counters");
    expect(items).toHaveLength(1);
    expect(items[0]!.match({ min: 37, hour: 13, date: 17, month: 6, dow: 3 })).toBe(true);
    expect(Object.keys(taskList)).toContain("roll-up-delivery-counters");
  });
});
