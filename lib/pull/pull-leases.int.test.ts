// #44: pull destinations (API.md "Pull destinations"): a pull leases the oldest ready deliveries, each `delivering`
// and handed to no other pull while its lease lasts; ack delivers, nack is a failed attempt; an unknown, settled or
// foreign lease id is `unknown`, never an error; bad input is 400, another organization's destination 404, a
// read-only key 403. Concurrent pulls never hold the same delivery; orderingKey and rateLimit hold for pulls.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import * as destinationRoute from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/route";
import { createApiKey } from "@/lib/api-keys/create-api-key";
import { useTestDatabase } from "@/test/db";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { ack, nack, pull, pulled, pullLane, send, type PullLane } from "@/test/pull-api";

useTestDatabase();

let acme: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
});
afterEach(() => {
  delete process.env.ORG_DELIVERY_CONCURRENCY;
});

const rowOf = async (lane: PullLane, requestId: string) =>
  (await getSql()<{ status: string; attempt_count: number; next_attempt_at: Date | null; parked_at: Date | null; claimed_by_job: string | null }[]>`
    select status, attempt_count, next_attempt_at, parked_at, claimed_by_job from deliveries
    where destination_id = ${lane.destinationId} and id like ${`${requestId}%`}`)[0]!;
const attemptsOf = async (lane: PullLane, requestId: string) =>
  getSql()<{ number: number; error: string | null; status_code: number | null }[]>`
    select a.number, a.error, a.status_code from attempts a join deliveries d on d.id = a.delivery_id
    where d.destination_id = ${lane.destinationId} and d.id like ${`${requestId}%`} order by a.number`;

describe("a pull destination", () => {
  it("is never pushed to: its deliveries wait parked, with no job", async () => {
    const lane = await pullLane(acme);
    const id = await send(lane, { type: "order.created", id: "evt_wait" });
    const row = await rowOf(lane, id);
    expect(row).toMatchObject({ status: "pending", attempt_count: 0, claimed_by_job: null });
    expect(row.parked_at).not.toBeNull();
    const [jobs] = await getSql()`select count(*)::int as n from graphile_worker._private_jobs where payload->>'deliveryId' like ${`${id}%`}`;
    expect(jobs!.n).toBe(0);
  });

  it("leases the oldest first, each once; ack delivers, nack retries later; unknown and settled leases are reported", async () => {
    const lane = await pullLane(acme);
    expect(await pulled(lane)).toEqual([]);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await send(lane, { type: `order.${i}`, id: `evt_${i}`, text: "naïve ☕" }));

    const first = await pulled(lane, { max: 2, leaseSeconds: 60 });
    expect(first.map((d) => d.deliveryId)).toEqual(ids.slice(0, 2));
    expect(first[0]).toMatchObject({ attempt: 1, eventType: "order.0", bodyEncoding: "utf8", body: JSON.stringify({ type: "order.0", id: "evt_0", text: "naïve ☕" }) });
    expect(first[0]!.externalId).toMatch(/^msg_/);
    expect(first[0]!.headers["content-type"]).toBe("application/json");
    expect(new Date(first[0]!.receivedAt).getTime()).toBeLessThanOrEqual(new Date(first[1]!.receivedAt).getTime());
    expect(first[0]!.leaseId).toMatch(/^lse_/);
    expect(await rowOf(lane, ids[0]!)).toMatchObject({ status: "delivering", claimed_by_job: first[0]!.leaseId });

    // Leased ones go to no other pull.
    const second = await pulled(lane, { max: 10 });
    expect(second.map((d) => d.deliveryId)).toEqual([ids[2]]);
    expect(await pulled(lane)).toEqual([]);

    const acked = await ack(lane, { leaseIds: [first[0]!.leaseId, "lse_0000000000000000000000000", "not-a-lease"] });
    expect(acked.status).toBe(200);
    expect(acked.body).toEqual({ acked: [first[0]!.leaseId], unknown: ["lse_0000000000000000000000000", "not-a-lease"] });
    expect(await rowOf(lane, ids[0]!)).toMatchObject({ status: "delivered", claimed_by_job: null });
    expect(await attemptsOf(lane, ids[0]!)).toEqual([{ number: 1, error: null, status_code: null }]);
    // Settled already: unknown, ack or nack.
    expect((await ack(lane, { leaseIds: [first[0]!.leaseId] })).body).toEqual({ acked: [], unknown: [first[0]!.leaseId] });
    expect((await nack(lane, { leaseIds: [first[0]!.leaseId] })).body).toEqual({ nacked: [], unknown: [first[0]!.leaseId] });

    const nacked = await nack(lane, { leaseIds: [first[1]!.leaseId], retryAfterSeconds: 600 });
    expect(nacked.body).toEqual({ nacked: [first[1]!.leaseId], unknown: [] });
    const retrying = await rowOf(lane, ids[1]!);
    expect(retrying).toMatchObject({ status: "pending", claimed_by_job: null, attempt_count: 1 });
    const [clock] = await getSql()<{ now: Date }[]>`select now()`;
    // retryAfterSeconds is a floor under the backoff (5 s here).
    expect(retrying.next_attempt_at!.getTime() - clock!.now.getTime()).toBeGreaterThan(590_000);
    expect(await attemptsOf(lane, ids[1]!)).toEqual([{ number: 1, error: "nacked", status_code: null }]);
    // Not due: no pull gets it.
    expect(await pulled(lane)).toEqual([]);

    // Its retry has its job, due then, which parks it for pulls again.
    const [withJob] = await getSql()`select count(*)::int as n from graphile_worker._private_jobs where payload->>'deliveryId' = ${`${ids[1]}:${lane.destinationId}`}`;
    expect(withJob!.n).toBe(1);
  });

  it("refuses bad input (400), another organization (404), a read-only key (403) and an http destination (409)", async () => {
    const lane = await pullLane(acme);
    for (const body of [{ max: 0 }, { max: 101 }, { max: 1.5 }, { leaseSeconds: 4 }, { leaseSeconds: 301 }, { waitSeconds: 31 }, { waitSeconds: -1 }, { wait: 1 }]) {
      const res = await pull(lane, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe("validation_error");
    }
    for (const body of [{}, { leaseIds: [] }, { leaseIds: "lse_x" }, { leaseIds: Array.from({ length: 101 }, (_, i) => `lse_${i}`) }, { leaseIds: ["a"], extra: 1 }]) {
      expect((await ack(lane, body)).status, JSON.stringify(body)).toBe(400);
      expect((await nack(lane, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await nack(lane, { leaseIds: ["lse_x"], retryAfterSeconds: -1 })).status).toBe(400);

    const other = await createOrganizationFixture("Other");
    await send(lane, { type: "secret.thing" });
    for (const call of [pull(lane, {}, other.apiKey), ack(lane, { leaseIds: ["lse_x"] }, other.apiKey), nack(lane, { leaseIds: ["lse_x"] }, other.apiKey)]) {
      const res = await call;
      expect(res.status).toBe(404);
    }
    const { apiKey: viewer } = await createApiKey({ ctx: acme.ctx, input: { name: "reader", role: "viewer" } });
    expect((await pull(lane, {}, viewer)).status).toBe(403);
    expect((await ack(lane, { leaseIds: ["lse_x"] }, viewer)).status).toBe(403);
    expect((await nack(lane, { leaseIds: ["lse_x"] }, viewer)).status).toBe(403);
    const [leases] = await getSql()`select count(*)::int as n from deliveries where destination_id = ${lane.destinationId} and status = 'delivering'`;
    expect(leases!.n).toBe(0);

    // The endpoint's default destination is an http one.
    const [http] = await getSql()<{ id: string }[]>`select id from destinations where endpoint_id = ${lane.endpointId} and is_default`;
    const pushed = await pull({ ...lane, destinationId: http!.id });
    expect(pushed.status).toBe(409);
    // A lease of one destination is unknown at another.
    const mine = await pulled(lane);
    const elsewhere = await pullLane(acme);
    expect((await ack(elsewhere, { leaseIds: [mine[0]!.leaseId] })).body).toEqual({ acked: [], unknown: [mine[0]!.leaseId] });
    expect((await rowOf(lane, mine[0]!.deliveryId)).status).toBe("delivering");
  });

  it("never hands one delivery to two pulls at once, however many pull together, whatever the organization's cap", async () => {
    const lane = await pullLane(await createOrganizationFixture());
    // Leases hold no worker: the organization's cap on attempts in flight does not count them.
    process.env.ORG_DELIVERY_CONCURRENCY = "5";
    const ids = new Set<string>();
    for (let i = 0; i < 40; i++) ids.add(await send(lane, { type: "tick", i }));
    const rounds = await Promise.all(Array.from({ length: 6 }, () => pulled(lane, { max: 8 })));
    const got = rounds.flat();
    const deliveryIds = got.map((d) => d.deliveryId);
    expect(new Set(deliveryIds).size).toBe(deliveryIds.length);
    expect(new Set(got.map((d) => d.leaseId)).size).toBe(got.length);
    // 6 × 8 asked for, 40 there: every one leased, once.
    expect(new Set(deliveryIds)).toEqual(ids);
    const [held] = await getSql()<{ n: number; holders: number }[]>`
      select count(*)::int as n, count(distinct claimed_by_job)::int as holders from deliveries where destination_id = ${lane.destinationId} and status = 'delivering'`;
    expect(held).toEqual({ n: 40, holders: 40 });
    expect(await pulled(lane)).toEqual([]);
  });

  it("holds the ordering key: a later delivery of a value waits while an earlier one is leased or retrying", async () => {
    const lane = await pullLane(await createOrganizationFixture(), { orderingKey: "account" });
    const a1 = await send(lane, { account: "A", n: 1 });
    const a2 = await send(lane, { account: "A", n: 2 });
    const b1 = await send(lane, { account: "B", n: 1 });
    const first = await pulled(lane);
    expect(first.map((d) => d.deliveryId)).toEqual([a1, b1]);
    const b2 = await send(lane, { account: "B", n: 2 });
    expect(await pulled(lane)).toEqual([]);
    // A1 delivered: A2 is next. B1 retrying: B2 still waits.
    await ack(lane, { leaseIds: [first[0]!.leaseId] });
    await nack(lane, { leaseIds: [first[1]!.leaseId], retryAfterSeconds: 600 });
    const next = await pulled(lane);
    expect(next.map((d) => d.deliveryId)).toEqual([a2]);
    expect((await rowOf(lane, b2)).status).toBe("pending");
  });

  it("holds the rate limit: no more leases start than its tokens allow", async () => {
    // One token every 50 s, two at once after a quiet spell.
    const lane = await pullLane(await createOrganizationFixture(), { rateLimit: { perSecond: 0.02, burst: 2 } });
    for (let i = 0; i < 5; i++) await send(lane, { type: "paced", i });
    const first = await pulled(lane, { max: 10 });
    expect(first).toHaveLength(2);
    expect(await pulled(lane, { max: 10 })).toEqual([]);
    // Acks give back no token.
    await ack(lane, { leaseIds: first.map((d) => d.leaseId) });
    expect(await pulled(lane, { max: 10 })).toEqual([]);
    const [parked] = await getSql()`select count(*)::int as n from deliveries where destination_id = ${lane.destinationId} and parked_at is not null`;
    expect(parked!.n).toBe(3);
  });

  it("leases nothing while paused; a resume wakes the pulls waiting for it", { timeout: 30_000 }, async () => {
    const lane = await pullLane(await createOrganizationFixture(), { paused: true });
    const id = await send(lane, { type: "held" });
    expect(await pulled(lane)).toEqual([]);
    const waiting = pulled(lane, { waitSeconds: 20 });
    let answered = false;
    void waiting.then(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(answered).toBe(false);
    const resumed = await callRoute(destinationRoute.PATCH, { method: "PATCH", apiKey: lane.apiKey, params: { id: lane.endpointId, destinationId: lane.destinationId }, body: { paused: false } });
    expect(resumed.status).toBe(200);
    expect((await waiting).map((d) => d.deliveryId)).toEqual([id]);
  });
});
