// A bulk replay of thousands must not hold up fresh deliveries of other endpoints: replays run in
// a lower-priority lane. Ordering is read from the attempts table (ids follow claim order).
import type { Runner } from "graphile-worker";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { deliverTask } from "@/jobs/deliver";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture, startDestination, startTestWorker, until, type Destination } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { replayDeliveries } from "./replay-deliveries";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.DELIVERY_LOG = "problems";

const REPLAYS = 2000;
let worker: Runner;
const destinations: Destination[] = [];

beforeAll(async () => {
  worker = await startTestWorker({ deliver: deliverTask });
});
afterAll(async () => {
  await worker?.stop();
  await Promise.all(destinations.map((d) => d.close()));
});

describe("a bulk replay does not delay fresh deliveries of other endpoints", () => {
  it("delivers a fresh delivery of another endpoint ahead of most of the replays", async () => {
    const org = await createOrganizationFixture();
    const replayed = await startDestination((_req, res) => void setTimeout(() => res.end("ok"), 2));
    const fresh = await startDestination();
    destinations.push(replayed, fresh);
    const busy = await createEndpointFixture(org.ctx, replayed.url);
    const other = await createEndpointFixture(org.ctx, fresh.url);
    await getSql()`
      with d as (
        insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, attempt_count, auto_attempt_count)
        select 'dlv_replay_' || n, ${org.organizationId}, ${busy.id}, 'dst_' || substr(${busy.id}, 4), 'evt_' || n, 'dead', 2, 1, 1
        from generate_series(1, ${REPLAYS}) n
        returning id, organization_id)
      insert into delivery_payloads (delivery_id, organization_id, headers, body) select id, organization_id, '{}'::jsonb, '\\x7b7d'::bytea from d`;

    expect(await replayDeliveries({ ctx: org.ctx, input: { filter: { endpointId: busy.id } } })).toEqual({ count: REPLAYS });
    await until("the replays under way", () => replayed.requests.length > 0);
    const { id } = await createDeliveryFixture({ ctx: org.ctx, endpointId: other.id });

    await until("the fresh delivery delivered", async () => {
      const [row] = await getSql()`select status from deliveries where id = ${id}`;
      return row!.status === "delivered";
    });
    const [order] = await getSql()`
      select count(*)::int as before from attempts
      where delivery_id like 'dlv_replay_%' and id < (select id from attempts where delivery_id = ${id})`;
    // Only replays already fetched into the worker's local queue (or running) can go first.
    expect(order!.before).toBeLessThan(REPLAYS / 4);

    await until("every replay delivered", async () => {
      const [row] = await getSql()`select count(*)::int as n from deliveries where endpoint_id = ${busy.id} and status = 'delivered'`;
      return row!.n === REPLAYS;
    }, 60_000);
    const [triggers] = await getSql()`
      select count(*) filter (where trigger = 'replay')::int as replay, count(*)::int as total
      from attempts where delivery_id like 'dlv_replay_%'`;
    expect(triggers).toEqual({ replay: REPLAYS, total: REPLAYS });
    expect(replayed.maxInFlight()).toBeLessThanOrEqual(10);
    const [slots] = await getSql()`select coalesce(sum(in_flight), 0)::int as n from destination_slots where destination_id = 'dst_' || substr(${busy.id}, 4)`;
    expect(slots!.n).toBe(0);
  }, 90_000);
});
