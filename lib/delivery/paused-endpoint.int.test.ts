// A paused endpoint costs nothing until it resumes (API.md): ingest stores its deliveries parked,
// without a job; a resume drains them oldest first at the endpoint's cap, beside other endpoints'
// traffic; and a resume racing ingest strands nothing. Real ingest route, real graphile-worker in
// this process, real local destinations.
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { afterEach, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createEndpoint } from "@/lib/endpoints/create-endpoint";
import { updateEndpoint } from "@/lib/endpoints/update-endpoint";
import { newId } from "@/lib/ids";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture, until, type Destination } from "@/test/delivery-fixtures";
import { useDeliveryWorkerSuite } from "@/test/delivery-worker-suite";
import { createOrganizationFixture } from "@/test/fixtures";
import { postIngest } from "@/test/ingest-requests";
import { claimDelivery } from "./engine/claim-delivery";
import { deliverySettings } from "./engine/settings";

process.env.ORG_INGEST_RATE = "100000"; // these tests send bursts; the organization's rate is tested elsewhere

useTestDatabase();
const suite = useDeliveryWorkerSuite();
const { destination, settled } = suite;

/** Ingests one webhook (provider none: its webhook-id header is the event id); returns the delivery id. */
async function ingest(endpointId: string, eventId = `evt_${newId("dlv")}`): Promise<string> {
  const answer = await postIngest(endpointId, JSON.stringify({ type: "test.event", eventId }), { "content-type": "application/json", "webhook-id": eventId });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.id;
}

const jobsOfEndpoint = async (endpointId: string) =>
  (await getSql()`select count(*)::int as n from graphile_worker._private_jobs where payload->>'endpointId' = ${endpointId}`)[0]!.n as number;

/** The delivery ids the destination received, in order of arrival. */
const arrivals = (dest: Destination) => dest.requests.map((r) => String(r.headers["x-inbox-delivery-id"]));

afterEach(async () => {
  delete process.env.ORG_DELIVERY_CONCURRENCY;
  // Whatever parked and unparked here (ingest, claims, resumes, chains), parked_deliveries says what deliveries says.
  const [apart] = await getSql()<{ n: number }[]>`
    with rows as (select destination_id, id from deliveries where parked_at is not null),
      mirror as (select destination_id, delivery_id as id from parked_deliveries)
    select (select count(*) from (table rows except table mirror) x)::int + (select count(*) from (table mirror except table rows) y)::int as n`;
  expect(apart!.n).toBe(0);
});

const resume = (endpointId: string, ctx = suite.org.ctx) => updateEndpoint({ ctx, input: { id: endpointId, changes: { paused: false } } });

describe("ingest to a paused endpoint", () => {
  it("stores every delivery parked and adds no job, so the worker does nothing for them", async () => {
    const dest = await destination();
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { paused: true });
    const ids = await Promise.all(Array.from({ length: 40 }, () => ingest(endpoint.id)));
    for (let i = 0; i < 10; i++) ids.push(await ingest(endpoint.id));

    expect(await jobsOfEndpoint(endpoint.id)).toBe(0);
    const [rows] = await getSql()`
      select count(*)::int as n, count(*) filter (where status = 'pending' and parked_at is not null and attempt_count = 0)::int as parked
      from deliveries where endpoint_id = ${endpoint.id}`;
    expect(rows).toEqual({ n: 50, parked: 50 });
    expect(dest.requests).toHaveLength(0);
  });
});

describe("resuming a paused endpoint", () => {
  it("delivers every delivery exactly once, oldest first", async () => {
    process.env.DELIVERY_ENDPOINT_CONCURRENCY = "1";
    const dest = await destination();
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { paused: true });
    const ids: string[] = [];
    for (let i = 0; i < 30; i++) ids.push(await ingest(endpoint.id));
    expect(await jobsOfEndpoint(endpoint.id)).toBe(0);

    await resume(endpoint.id);
    for (const id of ids) await settled(id, "delivered");
    expect(arrivals(dest)).toEqual(ids);
    expect(dest.maxInFlight()).toBe(1);
  });

  it("sends deliveries whose job ran only after the pause in their place by arrival", async () => {
    process.env.DELIVERY_ENDPOINT_CONCURRENCY = "1";
    const dest = await destination();
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { paused: true });
    // Stored before the pause, their jobs not yet run (no job here: this test runs their claims itself).
    const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);
    const [early, alone] = [
      await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id, receivedAt: minutesAgo(10), enqueue: false }),
      await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id, receivedAt: minutesAgo(9), enqueue: false }),
    ];
    const later: string[] = [];
    for (let i = 0; i < 3; i++) later.push(await ingest(endpoint.id));
    // Their jobs run now and park them (the claim statements, as the deliver task runs them).
    const settings = deliverySettings();
    const claim = (deliveryId: string, jobId: string) => claimDelivery({ deliveryId, destinationId: defaultDestinationId(endpoint.id), jobId, trigger: "auto", settings });
    expect(await claim(early.id, "9001")).toMatchObject({ verdict: "paused" });
    expect(await claim(alone.id, "9002")).toMatchObject({ verdict: "paused" });

    await resume(endpoint.id);
    for (const id of later) await settled(id, "delivered");
    expect(arrivals(dest)).toEqual([early.id, alone.id, ...later]);
  });

  it("drains a long backlog at the endpoint's cap while another organization's new deliveries go out at once", async () => {
    process.env.DELIVERY_ENDPOINT_CONCURRENCY = "10"; // as many as the test worker's slots: the backlog could hold them all
    // 50 ms an answer: at its cap the backlog takes 5 s at least, and a chain's 2 s limit (attempt-delivery.ts) comes first.
    const slow = await destination((_req, res) => void setTimeout(() => res.end("ok"), 50));
    const backlog = await createEndpointFixture(suite.org.ctx, slow.url, { paused: true });
    const total = 1_000;
    // Seeded as ingest stores them for a paused endpoint: parked, in order of arrival, no job.
    await getSql()`
      with d as (
        insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, size_bytes, received_at, parked_at)
        select 'dlv_seed' || lpad(g::text, 5, '0'), ${suite.org.organizationId}, ${backlog.id}, 'dst_' || substr(${backlog.id}, 4), 'seed' || g,
          2, now() - interval '1 hour' + g * interval '1 ms', now() - interval '1 hour' + g * interval '1 ms'
        from generate_series(1, ${total}) g
        returning id, organization_id)
      insert into delivery_payloads (delivery_id, organization_id, headers, body)
      select id, organization_id, '{"content-type":"application/json"}', convert_to('{}', 'UTF8') from d`;
    const other = await createOrganizationFixture("Other");
    const fast = await destination();
    const otherEndpoint = await createEndpoint({ ctx: other.ctx, input: { name: "other", provider: "none", destinationUrl: fast.url } });

    await resume(backlog.id);
    await until("the backlog draining", () => slow.requests.length >= 50);
    const id = await ingest(otherEndpoint.id);
    await until("the other organization's delivery delivered", async () => (await getSql()`select status from deliveries where id = ${id}`)[0]?.status === "delivered");
    const [{ delivered }] = await getSql()`select count(*)::int as delivered from deliveries where endpoint_id = ${backlog.id} and status = 'delivered'`;
    expect(delivered).toBeLessThan(total); // it did not wait for the backlog

    await until("the backlog drained", async () => (await getSql()`select count(*)::int as n from deliveries where endpoint_id = ${backlog.id} and status = 'delivered'`)[0]!.n === total, 60_000);
    expect(slow.maxInFlight()).toBeLessThanOrEqual(10);
    expect(new Set(arrivals(slow)).size).toBe(total);
    expect(slow.requests).toHaveLength(total);
  }, 90_000);

  it("waits for its organization's next free slot when the organization is at its cap", async () => {
    process.env.ORG_DELIVERY_CONCURRENCY = "2";
    const org = await createOrganizationFixture("At its cap");
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const hanging = await destination((_req, res) => void released.then(() => res.end("ok")));
    const busy = await createEndpointFixture(org.ctx, hanging.url);
    const dest = await destination();
    const endpoint = await createEndpointFixture(org.ctx, dest.url, { paused: true });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await ingest(endpoint.id));
    await Promise.all([ingest(busy.id), ingest(busy.id)]);
    await until("the organization's slots all taken", () => hanging.inFlight() === 2);

    await resume(endpoint.id, org.ctx);
    expect(dest.requests).toHaveLength(0);
    release();
    for (const id of ids) await until(`${id} delivered`, async () => (await getSql()`select status from deliveries where id = ${id}`)[0]!.status === "delivered");
    expect([...arrivals(dest)].sort()).toEqual([...ids].sort());
  });
});

describe("a resume racing ingest strands nothing", () => {
  /** Sessions of this database waiting for a lock. */
  const lockWaiters = async () =>
    (await getSql()`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)[0]!.n as number;

  it("delivers a webhook whose statement read the endpoint as paused and committed after the resume", async () => {
    const dest = await destination();
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { paused: true });
    // Another session holds an uncommitted row with the same event id, so the ingest statement, once it
    // has read the endpoint as paused, waits on it (the dedupe key's index) before it can commit.
    const blocker = await getSql().reserve();
    let ingested: Promise<string> | undefined;
    let resumed: Promise<unknown> | undefined;
    try {
      await blocker`begin`;
      await blocker`with d as (insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, size_bytes)
          values (${newId("dlv")}, ${suite.org.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), 'evt_race', 1) returning id, organization_id, endpoint_id, external_id),
        k as (insert into delivery_keys (endpoint_id, external_id, delivery_id) select endpoint_id, external_id, id from d)
        insert into delivery_payloads (delivery_id, organization_id, headers, body) select id, organization_id, '{}', '\\x00' from d`;
      ingested = ingest(endpoint.id, "evt_race");
      await until("the ingest statement waiting", async () => (await lockWaiters()) === 1);
      // The resume commits while that statement is still open. It must either make the statement
      // see it, or wait for the statement and then find its delivery parked.
      let resumeDone = false;
      resumed = resume(endpoint.id).finally(() => (resumeDone = true));
      await until("the resume done or waiting", async () => resumeDone || (await lockWaiters()) === 2);
    } finally {
      await blocker`rollback`;
      blocker.release();
    }
    const id = await ingested;
    await resumed;
    await settled(id, "delivered", 10_000);
    expect(arrivals(dest)).toEqual([id]);
  });

  it("delivers every webhook exactly once when the resume lands in the middle of a burst", async () => {
    const dest = await destination();
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { paused: true });
    const burst = (n: number) => Promise.all(Array.from({ length: n }, () => ingest(endpoint.id)));
    const first = burst(100);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const [ids] = await Promise.all([first, resume(endpoint.id)]);
    ids.push(...(await burst(20)));
    for (const id of ids) await settled(id, "delivered");
    expect([...arrivals(dest)].sort()).toEqual([...ids].sort());
  });
});
