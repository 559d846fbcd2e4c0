// Attempts that end together are recorded by one statement (finish-attempt.ts): each delivery moves,
// each attempt is recorded, each slot is freed, and a buried, deleted or unstorable one affects
// only itself.
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { buryDelivery } from "../bury-delivery";
import { claimDelivery } from "./claim-delivery";
import type { ClaimedAttempt } from "./claimed-attempt";
import { finishAttempt } from "./finish-attempt";
import { getDelivery } from "../get-delivery";
import { deliverySettings } from "./settings";
import { makeDeliveryPartitions } from "@/lib/storage/delivery-partitions";
import { idInWeek } from "@/test/partition-weeks";

useTestDatabase();

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  org = await createOrganizationFixture();
});

async function claimed(endpointId: string, jobId: string): Promise<ClaimedAttempt> {
  const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId, enqueue: false });
  const claim = await claimDelivery({ deliveryId: id, destinationId: defaultDestinationId(endpointId), jobId, trigger: "auto", settings: deliverySettings() });
  if (claim.verdict !== "claimed") throw new Error(`expected a claim, got ${claim.verdict}`);
  return claim.attempt;
}

function finish(attempt: ClaimedAttempt, jobId: string, statusCode: number, responseBody = "ok") {
  const delivered = statusCode < 300;
  return finishAttempt({
    attempt,
    jobId,
    send: { result: { kind: "response", statusCode, retryAfterMs: null }, responseBody, durationMs: 3 },
    outcome: delivered ? { kind: "delivered" } : { kind: "dead", reason: `HTTP ${statusCode}` },
    settings: deliverySettings(),
    slot: "release",
  });
}

const inFlight = async (endpointId: string) =>
  (await getSql()<{ n: number }[]>`select coalesce(sum(in_flight), 0)::int as n from destination_slots where destination_id = 'dst_' || substr(${endpointId}, 4)`)[0]!.n;

describe("attempts that end together", () => {
  it("each move their delivery, record their attempt and free their slot", async () => {
    const endpoints = await Promise.all([1, 2, 3].map(() => createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook")));
    const attempts: { attempt: ClaimedAttempt; jobId: string; code: number }[] = [];
    for (let i = 0; i < 18; i++) {
      const jobId = String(1000 + i);
      attempts.push({ attempt: await claimed(endpoints[i % 3]!.id, jobId), jobId, code: i % 4 === 0 ? 400 : 200 });
    }
    for (const endpoint of endpoints) expect(await inFlight(endpoint.id)).toBe(6);

    const settlements = await Promise.all(attempts.map(({ attempt, jobId, code }) => finish(attempt, jobId, code)));

    expect(settlements.every((s) => s.applied)).toBe(true);
    for (const [i, { attempt, code }] of attempts.entries()) {
      const delivery = await getDelivery({ ctx: org.ctx, input: { id: attempt.deliveryId } });
      expect(delivery.status, `delivery ${i}`).toBe(code === 200 ? "delivered" : "dead");
      expect(delivery.lastStatusCode).toBe(code);
      expect(delivery.attempts.map((a) => [a.number, a.statusCode])).toEqual([[1, code]]);
      expect(settlements[i]!.status).toBe(code === 200 ? "delivered" : "dead");
    }
    for (const endpoint of endpoints) expect(await inFlight(endpoint.id)).toBe(0);
  });

  it("leaves a delivery buried meanwhile dead, skips one deleted meanwhile, and fails only the attempt it cannot store", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const [kept, buried, deleted, unstorable, other] = await Promise.all(["11", "12", "13", "14", "15"].map(async (jobId) => ({ jobId, attempt: await claimed(endpoint.id, jobId) })));
    await buryDelivery({ ctx: org.ctx, input: { id: buried!.attempt.deliveryId } });
    await getSql()`delete from deliveries where id = ${deleted!.attempt.deliveryId}`;

    const [first, ...together] = await Promise.allSettled([
      finish(kept!.attempt, kept!.jobId, 200),
      finish(buried!.attempt, buried!.jobId, 400), // dead, and the bury stands
      finish(deleted!.attempt, deleted!.jobId, 200),
      finish(unstorable!.attempt, unstorable!.jobId, 200, "NUL \u0000 cannot be stored in text"),
      finish(other!.attempt, other!.jobId, 200),
    ]);
    expect(first.status).toBe("fulfilled");
    expect(together.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    expect((together[0] as PromiseFulfilledResult<{ applied: boolean }>).value.applied).toBe(false);
    expect((together[1] as PromiseFulfilledResult<{ applied: boolean }>).value.applied).toBe(false);

    expect((await getDelivery({ ctx: org.ctx, input: { id: kept!.attempt.deliveryId } })).status).toBe("delivered");
    expect((await getDelivery({ ctx: org.ctx, input: { id: other!.attempt.deliveryId } })).status).toBe("delivered");
    const buriedNow = await getDelivery({ ctx: org.ctx, input: { id: buried!.attempt.deliveryId } });
    expect(buriedNow.status).toBe("dead");
    expect(buriedNow.attempts).toHaveLength(1);
    // The attempt that could not be stored is left claimed: its job fails and runs again (a takeover).
    expect((await getDelivery({ ctx: org.ctx, input: { id: unstorable!.attempt.deliveryId } })).status).toBe("delivering");
  });
});

describe("attempts of deliveries weeks apart", () => {
  // The batch's statements read only the weeks between its least and greatest id (lib/storage/batch-id-range.ts):
  // a delivery at either end, or in a week between, is claimed and finished with the rest.
  it("are claimed together with their payloads, and end together", async () => {
    await makeDeliveryPartitions(getSql(), 3);
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const stored = await Promise.all(
      [idInWeek(3, 1), idInWeek(0, 1), idInWeek(1, 1), idInWeek(3, 2)].map((id) => createDeliveryFixture({ ctx: org.ctx, endpointId: endpoint.id, enqueue: false, id })),
    );
    const claims = await Promise.all(
      stored.map(({ id }, i) => claimDelivery({ deliveryId: id, destinationId: defaultDestinationId(endpoint.id), jobId: String(3000 + i), trigger: "auto", settings: deliverySettings() })),
    );
    const attempts = claims.map((c) => {
      if (c.verdict !== "claimed") throw new Error(`expected a claim, got ${c.verdict}`);
      return c.attempt;
    });
    expect(attempts.map((a) => [a.deliveryId, a.body.toString()])).toEqual(stored.map(({ id, body }) => [id, body.toString()]));

    const settlements = await Promise.all(attempts.map((attempt, i) => finish(attempt, String(3000 + i), 200)));
    expect(settlements.map((s) => [s.applied, s.status])).toEqual(stored.map(() => [true, "delivered"]));
    for (const { id } of stored) expect((await getDelivery({ ctx: org.ctx, input: { id } })).attempts.map((a) => a.statusCode)).toEqual([200]);
    expect(await inFlight(endpoint.id)).toBe(0);
  });
});

describe("attempts that end together and pass their slots on", () => {
  const capped = { ...deliverySettings(), destinationConcurrency: 3 };
  const claimCapped = (deliveryId: string, endpointId: string, jobId: string) =>
    claimDelivery({ deliveryId, destinationId: defaultDestinationId(endpointId), jobId, trigger: "auto", settings: capped });
  const passOn = (attempt: ClaimedAttempt, jobId: string) =>
    finishAttempt({
      attempt,
      jobId,
      send: { result: { kind: "response", statusCode: 200, retryAfterMs: null }, responseBody: "ok", durationMs: 2 },
      outcome: { kind: "delivered" },
      settings: capped,
      slot: "pass-on",
    });
  const nextOf = (settlement: Awaited<ReturnType<typeof passOn>>) =>
    settlement.next?.verdict === "claimed" ? settlement.next.attempt : null;

  /** `n` deliveries, claimed one after another by jobs 0..n-1: the first 3 claimed, the rest parked. */
  async function claimedAndParked(endpointId: string, n: number) {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await createDeliveryFixture({ ctx: org.ctx, endpointId, enqueue: false })).id);
    const verdicts = [];
    for (const [i, id] of ids.entries()) verdicts.push(await claimCapped(id, endpointId, String(i)));
    expect(verdicts.map((v) => v.verdict)).toEqual(ids.map((_, i) => (i < 3 ? "claimed" : "saturated")));
    const held = verdicts.slice(0, 3).map((v, i) => ({ attempt: (v as { attempt: ClaimedAttempt }).attempt, jobId: String(i) }));
    return { ids, held };
  }

  it("give each a different parked delivery, oldest first, and free the slots nobody was waiting for", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const { ids, held } = await claimedAndParked(endpoint.id, 7);

    // The first call runs alone and the other two go together: one statement with two chains of
    // one endpoint, which must take two different parked deliveries.
    const round1 = await Promise.all(held.map(({ attempt, jobId }) => passOn(attempt, jobId)));
    expect(round1.map((s) => nextOf(s)?.deliveryId).sort()).toEqual(ids.slice(3, 6).sort());
    expect(round1.every((s) => s.applied && s.status === "delivered")).toBe(true);
    expect(await inFlight(endpoint.id)).toBe(3);

    const round2 = await Promise.all(round1.map((s, i) => passOn(nextOf(s)!, held[i]!.jobId)));
    // One parked delivery was left: one slot passed on to it, the other two freed.
    expect(round2.map((s) => nextOf(s)?.deliveryId).filter(Boolean)).toEqual([ids[6]]);
    expect(await inFlight(endpoint.id)).toBe(1);
    for (const id of ids.slice(0, 6)) expect((await getDelivery({ ctx: org.ctx, input: { id } })).status).toBe("delivered");
    expect((await getDelivery({ ctx: org.ctx, input: { id: ids[6]! } })).status).toBe("delivering");
  });

  it("pass nothing on while the endpoint is paused, and free the slots", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const { ids, held } = await claimedAndParked(endpoint.id, 4);
    await getSql()`update destinations set paused = true where endpoint_id = ${endpoint.id} and is_default`;
    const settled = await Promise.all(held.map(({ attempt, jobId }) => passOn(attempt, jobId)));
    expect(settled.map((s) => s.next)).toEqual([null, null, null]);
    expect(await inFlight(endpoint.id)).toBe(0);
    expect((await getDelivery({ ctx: org.ctx, input: { id: ids[3]! } })).status).toBe("pending");
  });
});
