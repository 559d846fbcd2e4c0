// Claims, takeovers and slot hand-overs, called directly as the deliver task calls them (no worker
// runs here): a job re-run after its worker died, and a finished attempt passing its slot on.
// (The chain that a re-run job finishes is in attempt-delivery.int.test.ts: it needs a worker.)
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture, finishDelivered, startDestination, type Destination } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { attemptDelivery } from "./attempt-delivery";
import { claimDelivery } from "./claim-delivery";
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
    const claim = await claimDelivery({ target: { deliveryId: id }, jobId: "4242", trigger: "auto", settings: deliverySettings() });
    expect(claim.verdict).toBe("claimed");
    expect((await read(id)).status).toBe("delivering");
    // Another job may not attempt it while the claim holds...
    expect((await claimDelivery({ target: { deliveryId: id }, jobId: "999", trigger: "auto", settings: deliverySettings() })).verdict).toBe("in_flight");
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

describe("hands a freed slot to a delivery parked during the attempt, when none was parked as it began", () => {
  it("leaves the chain's claim out of the finish, then finds the parked delivery after the commit", async () => {
    const dest = await destination();
    const endpoint = await createEndpointFixture(org.ctx, dest.url);
    const first = (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false })).id;
    const later = (await createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false })).id;
    const settings = deliverySettings();
    const claim = await claimDelivery({ target: { deliveryId: first }, endpointId: endpoint.id, jobId: "6160", trigger: "auto", settings });
    if (claim.verdict !== "claimed") throw new Error(claim.verdict);
    expect(claim.parkedSeen).toBe(false);
    // Parked while the attempt was in flight.
    await getSql()`update deliveries set parked_at = now() where id = ${later}`;
    const settlement = await finishDelivered(claim.attempt, "6160", { parkedSeen: claim.parkedSeen });
    expect(settlement.next).toMatchObject({ verdict: "claimed", attempt: { deliveryId: later } });
    expect((await read(later)).status).toBe("delivering");
    expect(settlement.parkedSeen).toBe(true);
    // One slot in flight: the first attempt's was freed, the later one's taken.
    const [slots] = await getSql()`select coalesce(sum(in_flight), 0)::int as n from endpoint_slots where endpoint_id = ${endpoint.id}`;
    expect(slots!.n).toBe(1);
  });
});
