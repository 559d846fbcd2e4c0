// An organization's share of delivery capacity (ORG_DELIVERY_CONCURRENCY), with a real graphile-worker
// in this process and real local destinations: one tenant's hanging destinations hold at most its
// share of the worker's slots, so another tenant's deliveries do not wait behind them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { deliverTask } from "@/jobs/deliver";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture, startDestination, startTestWorker, until, type Destination } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { getDelivery } from "../get-delivery";
import { rescueDeliveries } from "./rescue-deliveries";

useTestDatabase();

const WORKER_SLOTS = 50;
let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
const destinations: Destination[] = [];

beforeAll(async () => {
  process.env.DELIVERY_LOG = "problems";
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  worker = await startTestWorker({ deliver: deliverTask }, { concurrency: WORKER_SLOTS, maxPoolSize: 12 });
});
afterEach(() => {
  delete process.env.ORG_DELIVERY_CONCURRENCY;
});
afterAll(async () => {
  await Promise.all(destinations.map((d) => d.close()));
  await worker?.stop();
});

async function destination(...args: Parameters<typeof startDestination>) {
  const started = await startDestination(...args);
  destinations.push(started);
  return started;
}

async function orgInFlight(organizationId: string): Promise<number> {
  const [row] = await getSql()`select coalesce(sum(in_flight), 0)::int as n from destination_slots where organization_id = ${organizationId}`;
  return row!.n;
}

describe("one organization's hanging destinations do not hold up another's deliveries", () => {
  it("keeps org A's 240 hanging attempts to its share, and delivers each of org B's 20 within 5 s of being stored", async () => {
    process.env.ORG_DELIVERY_CONCURRENCY = "20";
    const a = await createOrganizationFixture("Hanging");
    const b = await createOrganizationFixture("Healthy");
    // Accepts the connection and never answers.
    const hanging = await destination(() => {});
    const healthy = await destination();

    // 24 endpoints × 10 (each endpoint's own cap) = 240 attempts A would make at once: all 50 worker slots.
    for (let e = 0; e < 24; e++) {
      const endpoint = await createEndpointFixture(a.ctx, hanging.url, { timeoutMs: 30_000, retryBaseSeconds: 3600 });
      for (let i = 0; i < 10; i++) await createDeliveryFixture({ ctx: a.ctx, endpointId: endpoint.id });
    }
    await until("org A at its share", () => hanging.inFlight() === 20, 20_000);

    const endpoint = await createEndpointFixture(b.ctx, healthy.url);
    const stored = new Map<string, number>();
    for (let i = 0; i < 20; i++) {
      const { id } = await createDeliveryFixture({ ctx: b.ctx, endpointId: endpoint.id });
      stored.set(id, Date.now());
    }
    await until("all of B's deliveries received", () => healthy.requests.length === 20, 20_000);
    const waits = healthy.requests.map((r) => r.receivedAt - stored.get(r.headers["x-inbox-delivery-id"] as string)!);
    console.log(`[org-fairness] B's store → destination: max ${Math.max(...waits)} ms, while A held ${hanging.inFlight()} hanging attempts`);
    expect(Math.max(...waits)).toBeLessThan(5_000);

    // A never had more than its share in flight, counted by its destination and by its slots.
    expect(hanging.maxInFlight()).toBe(20);
    expect(await orgInFlight(a.organizationId)).toBe(20);
    const [waiting] = await getSql()`
      select count(*)::int as parked from deliveries where organization_id = ${a.organizationId} and parked_at is not null`;
    expect(waiting!.parked).toBe(220);
  });
});

describe("an organization's cap is shared by all its endpoints, and its waiting deliveries are woken as slots free", () => {
  it("never runs more than the cap at once across four endpoints, and delivers every parked delivery", async () => {
    process.env.ORG_DELIVERY_CONCURRENCY = "3";
    const org = await createOrganizationFixture();
    const slow = await destination((_req, res) => void setTimeout(() => res.end("slow ok"), 150));
    const ids: string[] = [];
    for (let e = 0; e < 4; e++) {
      const endpoint = await createEndpointFixture(org.ctx, slow.url);
      for (let i = 0; i < 6; i++) ids.push((await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id })).id);
    }
    for (const id of ids) {
      await until(`${id} delivered`, async () => (await getDelivery({ ctx: org.ctx, input: { id } })).status === "delivered", 30_000);
    }
    expect(slow.requests).toHaveLength(24);
    expect(slow.maxInFlight()).toBe(3);
    expect(await orgInFlight(org.organizationId)).toBe(0);
    // Endpoints waited for the organization's slots; the sweep forgets them once nothing is parked there.
    const waitingEndpoints = async () =>
      (await getSql()`select count(*)::int as n from org_waiting_destinations where organization_id = ${org.organizationId}`)[0]!.n;
    expect(await waitingEndpoints()).toBeGreaterThan(0);
    await rescueDeliveries();
    expect(await waitingEndpoints()).toBe(0);
  });
});
