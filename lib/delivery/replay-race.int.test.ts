// Issue #13 race (a): bury, then replay, while an attempt is in flight. The bury keeps the attempt's
// claim; a replay that cleared it made the first attempt's finish miss its row (a leaked slot) and let
// a second attempt run beside the first. A real worker, a destination that holds the first request.
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { AttemptInFlightError } from "@/lib/errors";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture, until } from "@/test/delivery-fixtures";
import { useDeliveryWorkerSuite } from "@/test/delivery-worker-suite";
import { buryDelivery } from "./bury-delivery";
import { replayDeliveries } from "./replay-deliveries";
import { replayDelivery } from "./replay-delivery";

useTestDatabase();
const suite = useDeliveryWorkerSuite();

describe("replaying a buried delivery whose attempt is still in flight", () => {
  it("answers 409 attempt_in_flight, one by one and in bulk, and the destination gets one request", async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const dest = await suite.destination(async (_request, response) => {
      await held;
      response.end("ok");
    });
    const endpoint = await createEndpointFixture(suite.org.ctx, dest.url, { timeoutMs: 20_000 });
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id });
    await until("the attempt to reach the destination", () => dest.requests.length === 1);

    await buryDelivery({ ctx: suite.org.ctx, input: { id } });
    expect((await suite.read(id)).status).toBe("dead");
    await expect(replayDelivery({ ctx: suite.org.ctx, input: { id } })).rejects.toBeInstanceOf(AttemptInFlightError);
    expect(await replayDeliveries({ ctx: suite.org.ctx, input: { filter: { endpointId: endpoint.id } } })).toEqual({ count: 0 });
    expect(await replayDeliveries({ ctx: suite.org.ctx, input: { filter: { endpointId: endpoint.id }, dryRun: true } })).toEqual({ count: 0 });

    // The held attempt finishes and is recorded (the destination accepted it), its slot freed.
    release();
    const delivered = await suite.settled(id, "delivered");
    expect(delivered.attempts.map((attempt) => attempt.statusCode)).toEqual([200]);
    const [slots] = await getSql()`select coalesce(sum(in_flight), 0)::int as n from destination_slots where destination_id = 'dst_' || substr(${endpoint.id}, 4)`;
    expect(slots!.n).toBe(0);

    // Once nothing is in flight, the replay goes through: a second request, and only then.
    await replayDelivery({ ctx: suite.org.ctx, input: { id } });
    await until("the replayed attempt", () => dest.requests.length === 2);
    await suite.settled(id, "delivered");
    expect(dest.requests).toHaveLength(2);
  });

  it("lets a replay through once the buried attempt's lease has lapsed (its worker died)", async () => {
    const endpoint = await createEndpointFixture(suite.org.ctx, "http://127.0.0.1:9/hook");
    const { id } = await createDeliveryFixture({ ctx: suite.org.ctx, endpointId: endpoint.id, enqueue: false });
    await getSql()`update deliveries set status = 'dead', claimed_by_job = '999999', lease_expires_at = now() - interval '1 second' where id = ${id}`;
    expect(await replayDelivery({ ctx: suite.org.ctx, input: { id } })).toEqual({ id, status: "pending" });
  });
});
