// #44: a pull's lease is an attempt, retried as a push attempt is, by a real worker: a lease that runs out
// unacknowledged is a failed attempt (`lease_expired`), settled by the worker just after it ends, and its late ack
// is `unknown`; the delivery comes back to pulls as attempt 2 once its backoff has passed; nacks retry it, and
// after maxAttempts it is dead.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { deliverTask } from "@/jobs/deliver";
import { expireLeasesTask } from "@/jobs/expire-leases";
import { getDelivery } from "@/lib/delivery/get-delivery";
import { useTestDatabase } from "@/test/db";
import { startTestWorker, until } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { ack, nack, pulled, pullLane, send, type Pulled, type PullLane } from "@/test/pull-api";

useTestDatabase();

let acme: Awaited<ReturnType<typeof createOrganizationFixture>>;
let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
beforeAll(async () => {
  process.env.DELIVERY_LOG = "problems";
  acme = await createOrganizationFixture("Acme");
  worker = await startTestWorker({ deliver: deliverTask, "expire-leases": expireLeasesTask });
});
afterAll(async () => {
  await worker?.stop();
});

const attemptsOf = (lane: PullLane, requestId: string) =>
  getSql()<{ number: number; error: string | null }[]>`
    select a.number, a.error from attempts a join deliveries d on d.id = a.delivery_id
    where d.destination_id = ${lane.destinationId} and d.id = ${`${requestId}:${lane.destinationId}`} order by a.number`;

/** The next lease of `requestId`, pulling (with a long poll) until its retry is due and parked for pulls. */
async function nextLease(lane: PullLane, requestId: string): Promise<Pulled> {
  return until(`a lease of ${requestId}`, async () => (await pulled(lane, { waitSeconds: 5, leaseSeconds: 60 })).find((d) => d.deliveryId === requestId), 30_000);
}

describe("a pull's lease", () => {
  it("that runs out is a failed attempt (lease_expired), retried as attempt 2; its late ack is unknown", { timeout: 60_000 }, async () => {
    const lane = await pullLane(acme, { maxAttempts: 3, retryBaseSeconds: 1 });
    const id = await send(lane, { type: "invoice.paid", id: "evt_late" });
    const [first] = await pulled(lane, { leaseSeconds: 5 });
    expect(first).toMatchObject({ deliveryId: id, attempt: 1 });

    await until("the worker settled the lapsed lease", async () => (await attemptsOf(lane, id)).length === 1, 20_000);
    expect(await attemptsOf(lane, id)).toEqual([{ number: 1, error: "lease_expired" }]);
    expect((await ack(lane, { leaseIds: [first!.leaseId] })).body).toEqual({ acked: [], unknown: [first!.leaseId] });

    const second = await nextLease(lane, id);
    expect(second.attempt).toBe(2);
    expect(second.leaseId).not.toBe(first!.leaseId);
    expect((await ack(lane, { leaseIds: [second.leaseId] })).body).toEqual({ acked: [second.leaseId], unknown: [] });
    const delivery = await getDelivery({ ctx: acme.ctx, input: { id } });
    const lane2 = delivery.destinations.find((d: { destinationId: string }) => d.destinationId === lane.destinationId)!;
    expect(lane2).toMatchObject({ status: "delivered", attemptCount: 2 });
    expect(delivery.attempts.filter((a: { destinationId: string }) => a.destinationId === lane.destinationId).map((a: { error: string | null }) => a.error)).toEqual(["lease_expired", null]);
  });

  it("nacked is retried under the destination's settings, and dead after maxAttempts", { timeout: 60_000 }, async () => {
    const lane = await pullLane(acme, { maxAttempts: 3, retryBaseSeconds: 1 });
    const id = await send(lane, { type: "invoice.failed", id: "evt_nack" });
    for (let attempt = 1; attempt <= 3; attempt++) {
      const lease = attempt === 1 ? (await pulled(lane, { leaseSeconds: 60 }))[0]! : await nextLease(lane, id);
      expect(lease).toMatchObject({ deliveryId: id, attempt });
      expect((await nack(lane, { leaseIds: [lease.leaseId] })).body).toEqual({ nacked: [lease.leaseId], unknown: [] });
    }
    const [row] = await getSql()<{ status: string; last_error: string }[]>`
      select status, last_error from deliveries where id = ${`${id}:${lane.destinationId}`}`;
    expect(row!.status).toBe("dead");
    expect(row!.last_error).toMatch(/^gave up after 3 attempts \(maxAttempts 3\); last: nacked/);
    expect((await attemptsOf(lane, id)).map((a) => a.error?.slice(0, 6))).toEqual(["nacked", "nacked", "gave u"]);
    // Dead: no pull gets it again.
    expect(await pulled(lane)).toEqual([]);
  });
});
