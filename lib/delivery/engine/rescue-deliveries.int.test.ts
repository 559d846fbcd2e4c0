// The per-minute safety net: deliveries that lost their job get one again.
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { rescueDeliveries } from "./rescue-deliveries";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.DELIVERY_LOG = "problems";

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  org = await createOrganizationFixture();
});

async function jobs(id: string) {
  const [row] = await getSql()`select count(*)::int as n from graphile_worker._private_jobs where payload->>'deliveryId' = ${id}`;
  return row!.n;
}

describe("re-enqueues a claim that lapsed without an outcome", () => {
  it("puts it back to pending with a job and records the lost attempt", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false });
    await getSql()`
      update deliveries set status = 'delivering', claimed_by_job = '777', attempt_count = 1, auto_attempt_count = 1,
        lease_expires_at = now() - interval '5 minutes', updated_at = now() - interval '6 minutes'
      where id = ${id}`;
    const result = await rescueDeliveries();
    expect(result.lapsed).toBeGreaterThanOrEqual(1);
    const [row] = await getSql()`select status, claimed_by_job, lease_expires_at from deliveries where id = ${id}`;
    expect(row).toEqual({ status: "pending", claimed_by_job: null, lease_expires_at: null });
    expect(await jobs(id)).toBe(1);
    const attempts = await getSql()`select number, error from attempts where delivery_id = ${id}`;
    expect(attempts).toEqual([{ number: 1, error: "interrupted: the attempt was lost (its job ended without an outcome)" }]);
  });

  it("leaves a claim whose lease still runs", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false });
    await getSql()`update deliveries set status = 'delivering', claimed_by_job = '778', lease_expires_at = now() + interval '30 seconds' where id = ${id}`;
    await rescueDeliveries();
    const [row] = await getSql()`select status from deliveries where id = ${id}`;
    expect(row!.status).toBe("delivering");
    expect(await jobs(id)).toBe(0);
  });
});

describe("recounts an endpoint's attempts in flight from its delivering rows", () => {
  it("corrects a count that drifted, in either direction", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    for (let i = 0; i < 2; i++) {
      const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false });
      await getSql()`update deliveries set status = 'delivering', claimed_by_job = ${`j${i}`}, lease_expires_at = now() + interval '1 minute' where id = ${id}`;
    }
    const total = async () => {
      const [row] = await getSql()`select coalesce(sum(in_flight), 0)::int as n from endpoint_slots where endpoint_id = ${endpoint.id}`;
      return row!.n;
    };
    await getSql()`insert into endpoint_slots (endpoint_id, shard, organization_id, in_flight) values (${endpoint.id}, 3, ${org.organizationId}, 7)`;
    await rescueDeliveries();
    expect(await total()).toBe(2);
    await getSql()`update endpoint_slots set in_flight = 0 where endpoint_id = ${endpoint.id}`;
    await rescueDeliveries();
    expect(await total()).toBe(2);
  });
});

describe("wakes parked deliveries whose endpoint has room", () => {
  it("gives the oldest parked deliveries jobs, up to the free slots, and none while paused", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const ids = [];
    for (let i = 0; i < 12; i++) ids.push((await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false })).id);
    await getSql()`update deliveries set parked_at = now() where id = any(${ids})`;
    await getSql()`update endpoints set paused = true where id = ${endpoint.id}`;
    await rescueDeliveries();
    for (const id of ids) expect(await jobs(id)).toBe(0);

    await getSql()`update endpoints set paused = false where id = ${endpoint.id}`;
    await rescueDeliveries();
    const woken = (await Promise.all(ids.map(jobs))).reduce((sum, n) => sum + n, 0);
    expect(woken).toBe(10); // the default cap
    const [left] = await getSql()`select count(*)::int as n from deliveries where endpoint_id = ${endpoint.id} and parked_at is not null`;
    expect(left!.n).toBe(2);
  });
});

describe("re-queues a pending delivery whose job can no longer run (issue #13 race c)", () => {
  const runnableJobs = async (id: string) => {
    const [row] = await getSql()`select count(*)::int as n from graphile_worker._private_jobs where payload->>'deliveryId' = ${id} and attempts < max_attempts`;
    return row!.n;
  };

  it("gives a job again to one whose job spent its own attempts and to one whose job is gone, and leaves the rest", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const exhausted = (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id })).id;
    const jobless = (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false })).id;
    const healthy = (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id })).id;
    const fresh = (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false })).id;
    const parked = (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false })).id;
    // graphile-worker gave up on the first one's job (hours of database trouble); it stays in its table, failed for good.
    await getSql()`update graphile_worker._private_jobs set attempts = max_attempts, last_error = 'connection terminated' where payload->>'deliveryId' = ${exhausted}`;
    await getSql()`update deliveries set updated_at = now() - interval '10 minutes' where id in ${getSql()([exhausted, jobless, healthy, parked])}`;
    await getSql()`update deliveries set parked_at = now() - interval '10 minutes' where id = ${parked}`;
    expect(await runnableJobs(exhausted)).toBe(0);

    const result = await rescueDeliveries();
    expect(result.orphaned).toBe(2);
    expect(await runnableJobs(exhausted)).toBe(1);
    expect(await runnableJobs(jobless)).toBe(1);
    expect(await runnableJobs(healthy)).toBe(1); // its own job, not a second one
    expect(await runnableJobs(fresh)).toBe(0); // not due long enough to be looked at
    expect(await runnableJobs(parked)).toBe(1); // woken by its own step (free slots), not also queued as an orphan

    expect((await rescueDeliveries()).orphaned).toBe(0); // found once
  });

  it("leaves a paused endpoint's deliveries alone until it resumes", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const jobless = (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false })).id;
    await getSql()`update deliveries set updated_at = now() - interval '10 minutes' where id = ${jobless}`;
    await getSql()`update endpoints set paused = true where id = ${endpoint.id}`;
    expect((await rescueDeliveries()).orphaned).toBe(0);
    expect(await runnableJobs(jobless)).toBe(0);

    await getSql()`update endpoints set paused = false where id = ${endpoint.id}`;
    expect((await rescueDeliveries()).orphaned).toBe(1);
    expect(await runnableJobs(jobless)).toBe(1);
  });
});
