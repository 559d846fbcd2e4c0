// Claims, takeovers and slot hand-overs, called directly as the deliver task calls them (no worker
// runs here): a job re-run after its worker died, and a finished attempt passing its slot on.
// (The chain that a re-run job finishes is in attempt-delivery.int.test.ts: it needs a worker.)
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture, finishDelivered, startDestination, type Destination } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { attemptDelivery } from "./attempt-delivery";
import { claimDelivery } from "./claim-delivery";
import { finishAttempt } from "./finish-attempt";
import { getDelivery } from "../get-delivery";
import { deliverySettings } from "./settings";

useTestDatabase();
process.env.DELIVERY_LOG = "problems";

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
const destinations: Destination[] = [];

beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  org = await createOrganizationFixture();
});
afterAll(async () => {
  await Promise.all(destinations.map((d) => d.close()));
});

async function destination() {
  const started = await startDestination();
  destinations.push(started);
  return started;
}

const read = (id: string) => getDelivery({ ctx: org.ctx, input: { id } });

describe("takes over an attempt its own job began before dying", () => {
  it("marks the lost attempt interrupted and makes the next one", async () => {
    const dest = await destination();
    const endpoint = await createEndpointFixture(org.ctx, dest.url);
    const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false });
    // A job claims it (as a worker would, before being killed) and never finishes.
    const claim = await claimDelivery({ deliveryId: id, jobId: "4242", trigger: "auto", settings: deliverySettings() });
    expect(claim.verdict).toBe("claimed");
    expect((await read(id)).status).toBe("delivering");
    // Another job may not attempt it while the claim holds...
    expect((await claimDelivery({ deliveryId: id, jobId: "999", trigger: "auto", settings: deliverySettings() })).verdict).toBe("in_flight");
    // ...but the same job, run again after its worker died, takes over.
    const result = await attemptDelivery({ deliveryId: id, trigger: "auto", jobId: "4242" });
    expect(result.attempted).toBe(true);
    const delivery = await read(id);
    expect(delivery.status).toBe("delivered");
    expect(delivery.attempts.map((a) => [a.number, a.statusCode, a.error])).toEqual([
      [1, null, "interrupted: the worker stopped during this attempt, so its outcome is unknown"],
      [2, 200, null],
    ]);
    expect(dest.requests[0]!.headers["x-inbox-attempt"]).toBe("2");
  });
});

describe("the slot of an attempt that ends while a delivery waits parked", () => {
  async function attemptWithParked() {
    const dest = await destination();
    const endpoint = await createEndpointFixture(org.ctx, dest.url);
    const first = (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false })).id;
    const later = (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false })).id;
    const claim = await claimDelivery({ deliveryId: first, destinationId: defaultDestinationId(endpoint.id), jobId: "6160", trigger: "auto", settings: deliverySettings() });
    if (claim.verdict !== "claimed") throw new Error(claim.verdict);
    // Parked while the attempt was in flight.
    await getSql()`update deliveries set parked_at = now() where id = ${later}`;
    const inFlight = async () =>
      (await getSql()<{ n: number }[]>`select coalesce(sum(in_flight), 0)::int as n from destination_slots where destination_id = 'dst_' || substr(${endpoint.id}, 4)`)[0]!.n;
    return { attempt: claim.attempt, later, inFlight };
  }

  it("passes on to it, claimed for the same job, when the attempt's slot fate is pass-on", async () => {
    const { attempt, later, inFlight } = await attemptWithParked();
    const settlement = await finishDelivered(attempt, "6160");
    expect(settlement.next).toMatchObject({ verdict: "claimed", attempt: { deliveryId: later } });
    expect((await read(later)).status).toBe("delivering");
    // The slot went on to the later delivery: still one in flight.
    expect(await inFlight()).toBe(1);
  });

  it("is freed and wakes it as a job of its own, when the attempt's slot fate is release", async () => {
    const { attempt, later, inFlight } = await attemptWithParked();
    const settlement = await finishAttempt({
      attempt,
      jobId: "6160",
      send: { result: { kind: "response", statusCode: 200, retryAfterMs: null }, responseBody: "ok", durationMs: 1 },
      outcome: { kind: "delivered" },
      slot: "release",
      settings: deliverySettings(),
    });
    expect(settlement.next).toBeNull();
    expect(settlement.woken).toBe(1);
    const [row] = await getSql()<{ parked: boolean; jobs: number }[]>`
      select parked_at is not null as parked, (select count(*)::int from graphile_worker._private_jobs where payload->>'deliveryId' = ${later}) as jobs
      from deliveries where id = ${later}`;
    expect(row).toEqual({ parked: false, jobs: 1 });
    expect(await inFlight()).toBe(0);
  });
});
