// The deliver task against real local destinations, run by a real graphile-worker in this process:
// SSRF refusals at connect time, paused endpoints, the per-endpoint cap and slot hand-overs.
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { updateEndpoint } from "@/lib/endpoints/update-endpoint";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture, finishDelivered, until } from "@/test/delivery-fixtures";
import { useDeliveryWorkerSuite } from "@/test/delivery-worker-suite";
import { attemptDelivery } from "./attempt-delivery";
import { claimDelivery } from "./claim-delivery";
import { deliverySettings } from "./settings";

useTestDatabase();
const suite = useDeliveryWorkerSuite();
const { destination, read, settled, jobsFor } = suite;

describe("refuses private destinations at connect time unless allowed (SSRF)", () => {
  it("buries a delivery whose destination is a loopback IP, sending nothing", async () => {
    const dest = await destination();
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url);
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "false";
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const dead = await settled(id, "dead");
    expect(dead.lastError).toMatch(/127\.0\.0\.1 is a private or internal address \(loopback, 127\.0\.0\.0\/8\)/);
    expect(dest.requests).toHaveLength(0);
  });

  it("buries a delivery whose host name resolves to loopback (checked when connecting)", async () => {
    const dest = await destination();
    const endpoint = await createEndpointFixture(suite.org.ctx, `http://localhost:${dest.port}/hook`);
    process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "false";
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const dead = await settled(id, "dead");
    expect(dead.lastError).toMatch(/localhost resolves to .*private or internal address/);
    expect(dest.requests).toHaveLength(0);
  });

  it("does not follow a redirect, so it cannot be bounced to an internal address", async () => {
    const internal = await destination();
    const dest = await destination((_req, res) => {
      res.writeHead(307, { location: internal.url });
      res.end();
    });
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { retryBaseSeconds: 60 });
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    const waiting = await until("retry scheduled", async () => {
      const delivery = await read(id);
      return delivery.attemptCount === 1 && delivery.status === "pending" ? delivery : null;
    });
    expect(waiting.lastError).toMatch(/^HTTP 307 Temporary Redirect: redirect to http:\/\/127\.0\.0\.1:\d+\/hook not followed/);
    expect(internal.requests).toHaveLength(0);
  });
});

describe("a paused endpoint holds its deliveries, and drains them when resumed", () => {
  it("keeps them pending without attempts, then delivers every one after unpausing", async () => {
    const dest = await destination();
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { paused: true });
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id })).id);
    await until("all held", async () => {
      const rows = await getSql()`select count(*)::int as n from deliveries where endpoint_id = ${endpoint.id} and parked_at is not null`;
      return rows[0]!.n === 5;
    });
    for (const id of ids) expect(await read(id)).toMatchObject({ status: "pending", attemptCount: 0, nextAttemptAt: null });
    expect(await jobsFor(ids[0]!)).toBe(0);
    expect(dest.requests).toHaveLength(0);

    await updateEndpoint({ ctx: suite.org.ctx, input: { id: endpoint.id, changes: { paused: false } } });
    for (const id of ids) await settled(id, "delivered");
    expect(dest.requests).toHaveLength(5);
  });
});

describe("caps attempts in flight per endpoint, without starving other endpoints", () => {
  it("never has more than the cap in flight for one slow endpoint, delivers all, and lets another endpoint through meanwhile", async () => {
    process.env.DELIVERY_ENDPOINT_CONCURRENCY = "3";
    const slow = await destination((_req, res) => void setTimeout(() => res.end("slow ok"), 150));
    const fast = await destination();
    const slowEndpoint = await createEndpointFixture(suite.org.ctx, slow.url);
    const fastEndpoint = await createEndpointFixture(suite.org.ctx, fast.url);
    // Stored at once, so the backlog is there before the worker can drain it (one at a time, a busy
    // machine could store them no faster than the endpoint's cap delivers them).
    const slowIds = await Promise.all(Array.from({ length: 24 }, async () => (await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: slowEndpoint.id })).id));
    await until("the slow endpoint saturated", () => slow.inFlight() === 3);
    const { id: fastId } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: fastEndpoint.id });
    await settled(fastId, "delivered");
    const [open] = await getSql()`select count(*)::int as n from deliveries where endpoint_id = ${slowEndpoint.id} and status <> 'delivered'`;
    expect(open!.n).toBeGreaterThan(0); // the fast endpoint did not wait for the slow backlog
    for (const id of slowIds) await settled(id, "delivered", 30_000);
    expect(slow.maxInFlight()).toBe(3);
    expect(slow.requests).toHaveLength(24);
    // Every slot taken was given back.
    const [slots] = await getSql()`select coalesce(sum(in_flight), 0)::int as n from destination_slots where destination_id = 'dst_' || substr(${slowEndpoint.id}, 4)`;
    expect(slots!.n).toBe(0);
  });
});

describe("hands a freed slot straight to the endpoint's oldest parked delivery", () => {
  it("delivers parked deliveries in the same job run, and a re-run job finishes a chain its dead worker began", async () => {
    const dest = await destination();
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id, enqueue: false })).id);
    await getSql()`update deliveries set parked_at = now() - interval '2 seconds' where id = ${ids[1]!}`;
    await getSql()`update deliveries set parked_at = now() - interval '1 second' where id = ${ids[2]!}`;
    const settings = deliverySettings();
    // Job 5150 claims the first, and its finish hands the slot to the oldest parked one...
    const claim = await claimDelivery({ deliveryId: ids[0]!, destinationId: defaultDestinationId(endpoint.id), jobId: "5150", trigger: "auto", settings });
    if (claim.verdict !== "claimed") throw new Error(claim.verdict);
    const settlement = await finishDelivered(claim.attempt, "5150");
    expect(settlement.next).toMatchObject({ verdict: "claimed", attempt: { deliveryId: ids[1] } });
    expect((await read(ids[1]!)).status).toBe("delivering");
    // ...then the worker dies. The same job, run again, finds its own delivery done and takes over the chain.
    const result = await attemptDelivery({ deliveryId: ids[0]!, destinationId: defaultDestinationId(endpoint.id), trigger: "auto", jobId: "5150", rerun: true });
    expect(result.attempted).toBe(true);
    const taken = await read(ids[1]!);
    expect(taken.status).toBe("delivered");
    expect(taken.attempts.map((a) => [a.number, a.statusCode, a.error])).toEqual([
      [1, null, "interrupted: the worker stopped during this attempt, so its outcome is unknown"],
      [2, 200, null],
    ]);
    // The last parked delivery goes out too: the freed slot woke it as a job of its own, which this file's worker ran.
    expect((await read(ids[2]!)).status).toBe("delivered");
    expect(await jobsFor(ids[2]!)).toBe(0);
  });
});
