// Claims made together are decided by one statement (CLAIM, sql/claim.ts): an endpoint's free slots go
// to its claims in order and the rest park, a second job for a delivery finds it in flight, and a
// paused endpoint holds its deliveries.
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { claimDelivery } from "./claim-delivery";
import { getDelivery } from "../get-delivery";
import { deliverySettings } from "./settings";

useTestDatabase();

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  org = await createOrganizationFixture();
});

const settings = { ...deliverySettings(), destinationConcurrency: 3 };
const claim = (deliveryId: string, endpointId: string, jobId: string) =>
  claimDelivery({ deliveryId, destinationId: defaultDestinationId(endpointId), jobId, trigger: "auto", settings });
const inFlight = async (endpointId: string) =>
  (await getSql()<{ n: number }[]>`select coalesce(sum(in_flight), 0)::int as n from destination_slots where destination_id = 'dst_' || substr(${endpointId}, 4)`)[0]!.n;
const stored = async (endpointId: string, n: number) =>
  Promise.all(Array.from({ length: n }, async () => (await createDeliveryFixture({ ctx: org.ctx, endpointId, enqueue: false })).id));

describe("claims made together", () => {
  it("give each endpoint no more attempts than its cap and park the rest", async () => {
    const busy = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const quiet = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const busyIds = await stored(busy.id, 8);
    const quietIds = await stored(quiet.id, 2);
    const claims = await Promise.all([
      ...busyIds.map((id, i) => claim(id, busy.id, String(100 + i))),
      ...quietIds.map((id, i) => claim(id, quiet.id, String(200 + i))),
    ]);
    const busyVerdicts = claims.slice(0, 8).map((c) => c.verdict);
    expect(busyVerdicts.filter((v) => v === "claimed")).toHaveLength(3);
    expect(busyVerdicts.filter((v) => v === "saturated")).toHaveLength(5);
    expect(claims.slice(8).map((c) => c.verdict)).toEqual(["claimed", "claimed"]);
    expect(await inFlight(busy.id)).toBe(3);
    expect(await inFlight(quiet.id)).toBe(2);

    const statuses = await Promise.all(busyIds.map(async (id) => (await getDelivery({ ctx: org.ctx, input: { id } })).status));
    expect(statuses.filter((s) => s === "delivering")).toHaveLength(3);
    const parked = await getSql()<{ n: number }[]>`select count(*)::int as n from deliveries where endpoint_id = ${busy.id} and parked_at is not null and status = 'pending'`;
    expect(parked[0]!.n).toBe(5);
  });

  it("let one of two jobs for the same delivery claim it; the other finds it in flight", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const [first, id] = await stored(endpoint.id, 2);
    const claims = await Promise.all([claim(first!, endpoint.id, "300"), claim(id!, endpoint.id, "301"), claim(id!, endpoint.id, "302")]);
    expect(claims.map((c) => c.verdict)).toEqual(["claimed", "claimed", "in_flight"]);
    expect(await inFlight(endpoint.id)).toBe(2);
    const delivery = await getDelivery({ ctx: org.ctx, input: { id: id! } });
    expect(delivery.attemptCount).toBe(1);
  });

  it("hold the deliveries of a paused endpoint", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    await getSql()`update destinations set paused = true where endpoint_id = ${endpoint.id} and is_default`;
    const ids = await stored(endpoint.id, 3);
    const claims = await Promise.all(ids.map((id, i) => claim(id, endpoint.id, String(400 + i))));
    expect(claims.map((c) => c.verdict)).toEqual(["paused", "paused", "paused"]);
    expect(await inFlight(endpoint.id)).toBe(0);
  });

  it("take over their own job's lost attempt beside new claims, and a takeover at a paused endpoint parks and gives its slot back", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const [lost, first, fresh] = await stored(endpoint.id, 3);
    expect((await claim(lost!, endpoint.id, "500")).verdict).toBe("claimed");
    expect(await inFlight(endpoint.id)).toBe(1);
    // Job 500 runs again (its worker died) while jobs 501 and 502 claim others: the first call runs
    // alone, the other two go together in one statement.
    const [, again, other] = await Promise.all([claim(first!, endpoint.id, "501"), claim(lost!, endpoint.id, "500"), claim(fresh!, endpoint.id, "502")]);
    expect(again).toMatchObject({ verdict: "claimed", attempt: { tookOver: true, attemptNumber: 2 } });
    expect(other.verdict).toBe("claimed");
    expect(await inFlight(endpoint.id)).toBe(3);

    await getSql()`update destinations set paused = true where endpoint_id = ${endpoint.id} and is_default`;
    expect((await claim(lost!, endpoint.id, "500")).verdict).toBe("paused");
    expect(await inFlight(endpoint.id)).toBe(2);
    const delivery = await getDelivery({ ctx: org.ctx, input: { id: lost! } });
    expect(delivery.status).toBe("pending");
    expect(delivery.attempts.map((a) => [a.number, a.error?.slice(0, 12)])).toEqual([[1, "interrupted:"], [2, "interrupted:"]]);
  });
});
