// The per-minute safety net: deliveries that lost their job get one again.
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import type postgres from "postgres";
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { deliverJobSpec, enqueueRaw } from "@/lib/queue/enqueue";
import { requeueOrphans, rescueDeliveries } from "./rescue-deliveries";
import { leavesOf } from "@/test/counting-reads";

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
      const [row] = await getSql()`select coalesce(sum(in_flight), 0)::int as n from destination_slots where destination_id = 'dst_' || substr(${endpoint.id}, 4)`;
      return row!.n;
    };
    await getSql()`insert into destination_slots (destination_id, shard, organization_id, in_flight) values ('dst_' || substr(${endpoint.id}, 4), 3, ${org.organizationId}, 7)`;
    await rescueDeliveries();
    expect(await total()).toBe(2);
    await getSql()`update destination_slots set in_flight = 0 where destination_id = 'dst_' || substr(${endpoint.id}, 4)`;
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
    await getSql()`update destinations set paused = true where endpoint_id = ${endpoint.id} and is_default`;
    await rescueDeliveries();
    for (const id of ids) expect(await jobs(id)).toBe(0);

    await getSql()`update destinations set paused = false where endpoint_id = ${endpoint.id} and is_default`;
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
    await getSql()`update destinations set paused = true where endpoint_id = ${endpoint.id} and is_default`;
    expect((await rescueDeliveries()).orphaned).toBe(0);
    expect(await runnableJobs(jobless)).toBe(0);

    await getSql()`update destinations set paused = false where endpoint_id = ${endpoint.id} and is_default`;
    expect((await rescueDeliveries()).orphaned).toBe(1);
    expect(await runnableJobs(jobless)).toBe(1);
  });
});

describe("reads a bounded stretch of each endpoint's backlog a sweep, and goes round it", () => {
  it("costs a sweep the same however long a tenant's backlog, and still finds a lost job at its far end", async () => {
    const walk = 100;
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    // A destination down for hours: 2,000 deliveries waiting for retries an hour away, oldest first.
    await getSql()`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since, updated_at, next_attempt_at)
      select 'dlv_backlog' || lpad(g::text, 18, '0'), ${org.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), 'evt_backlog_' || g, 'pending', 2,
        now() - (3000 - g) * interval '1 second', now() - (3000 - g) * interval '1 second', now() - interval '10 minutes', now() + interval '1 hour'
      from generate_series(1, 2000) g`;
    const newest = (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false })).id;
    await getSql()`update deliveries set updated_at = now() - interval '10 minutes' where id = ${newest}`;
    const [{ n: endpointsWithBacklog }] = await getSql()`
      select count(distinct endpoint_id)::int as n from deliveries where status in ('pending', 'delivering')`;

    const sweep = () =>
      getSql().begin(async (tx) => {
        // This backend's reads of deliveries not yet flushed to pg_stat_user_tables: earlier statements' too, so
        // the difference. (PostgreSQL flushes them only between transactions.)
        const reads = async () =>
          Number((await tx.unsafe(`select coalesce(sum(idx_tup_fetch + seq_tup_read), 0) as n from pg_stat_xact_user_tables where relid in ${leavesOf("deliveries")}`))[0]!.n);
        const before = await reads();
        const requeued = await requeueOrphans(tx, walk);
        return { requeued: requeued.map((r) => r.id), read: (await reads()) - before };
      });

    let sweeps = 0;
    let found = false;
    while (!found && sweeps < 40) {
      const { requeued, read } = await sweep();
      sweeps += 1;
      // A stretch of each endpoint with open deliveries, and a look-up of what it found: never the whole backlog.
      expect(read).toBeLessThanOrEqual(walk * endpointsWithBacklog + 10);
      found = requeued.includes(newest);
    }
    expect(found).toBe(true);
    expect(sweeps).toBeGreaterThanOrEqual(2000 / walk); // walked to it, a stretch a sweep
    expect(sweeps).toBeLessThanOrEqual(2001 / walk + 1);

    // Having reached the end, the next walk starts at the oldest again.
    const oldest = "dlv_backlog" + "1".padStart(18, "0");
    await getSql()`update deliveries set next_attempt_at = null where id = ${oldest}`;
    const next = await sweep();
    const after = next.requeued.includes(oldest) ? next : await sweep();
    expect(after.requeued).toContain(oldest);
  });

  it("asks for each overdue delivery's job by its key, and reads the whole job table only for one without", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    // A worker minutes behind: 300 deliveries overdue, each with its job still queued.
    const ids = Array.from({ length: 300 }, (_, i) => `dlv_behind${String(i).padStart(15, "0")}`);
    await getSql()`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, updated_at)
      select id, ${org.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), id, 'pending', 2, now() - interval '10 minutes' from unnest(${ids}::text[]) id`;
    await enqueueRaw(getSql(), ids.map((id) => deliverJobSpec({ deliveryId: id, destinationId: defaultDestinationId(endpoint.id), trigger: "auto" })));
    const jobTableScans = (tx: postgres.TransactionSql) =>
      tx`select seq_scan from pg_stat_xact_all_tables where schemaname = 'graphile_worker' and relname = '_private_jobs'`.then((r) => Number(r[0]!.seq_scan));
    const sweep = () =>
      getSql().begin(async (tx) => {
        const before = await jobTableScans(tx);
        const requeued = await requeueOrphans(tx, 1000);
        return { requeued: requeued.map((r) => r.id), scans: (await jobTableScans(tx)) - before };
      });

    // Other tests' orphans may still be found (once); then only this endpoint's overdue deliveries are candidates.
    await sweep();
    const settled = await sweep();
    expect(settled.requeued).toEqual([]);
    expect(settled.scans).toBe(0);

    // One of them loses its job: found, at the price of one read of the job table.
    await getSql()`delete from graphile_worker._private_jobs where key = ${"deliver:" + ids[150]}`;
    const lost = await sweep();
    expect(lost.requeued).toEqual([ids[150]]);
    expect(lost.scans).toBe(1);
  });
});
