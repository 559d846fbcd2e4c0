// An endpoint's stats: right through every change of its deliveries (stored, settled, replayed, buried,
// expired, purged in batches), folded into the counters or not yet, and never counting its deliveries: not those
// it holds, nor its backlog, nor its dead, nor its last hour's.
import { beforeAll, describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { createCtx } from "@/lib/context";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { deleteExpiredDeliveries } from "@/lib/retention/delete-expired-deliveries";
import { useTestDatabase } from "@/test/db";
import { countingReads } from "@/test/counting-reads";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { getEndpointStats } from "./get-endpoint-stats";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  org = await createOrganizationFixture();
});

/**
 * Deliveries of `endpointId` in `status`, received `hoursAgo` (and settled then, so past a 1-day retention when
 * old), as ingest and the worker would have stored them then: their counter events dated so too.
 */
async function store(endpointId: string, status: string, count: number, hoursAgo: number, prefix: string) {
  await getSql().begin(async (tx) => {
    await tx`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since, updated_at, delivered_at)
      select 'dlv_' || ${prefix} || lpad(g::text, 12, '0'), ${org.organizationId}, ${endpointId}, ${defaultDestinationId(endpointId)}, ${prefix} || g, ${status}, 10,
        now() - make_interval(hours => ${hoursAgo}), now() - make_interval(hours => ${hoursAgo}), now() - make_interval(hours => ${hoursAgo}),
        case when ${status} = 'delivered' then now() - make_interval(hours => ${hoursAgo}) end
      from generate_series(1, ${count}) g`;
    await tx`update delivery_counter_events set at = now() - make_interval(hours => ${hoursAgo}) where endpoint_id = ${endpointId} and at = now()`;
  });
}

async function truth(endpointId: string) {
  const rows = await getSql()<{ status: string; n: number }[]>`select status, count(*)::int as n from deliveries where endpoint_id = ${endpointId} group by 1`;
  const of = (status: string) => rows.find((row) => row.status === status)?.n ?? 0;
  const [recent] = await getSql()<{ received: number; delivered: number }[]>`
    select count(*) filter (where received_at > now() - interval '1 hour')::int as received,
           count(*) filter (where delivered_at > now() - interval '1 hour')::int as delivered
    from deliveries where endpoint_id = ${endpointId}`;
  return {
    pending: of("pending"), delivering: of("delivering"), delivered: of("delivered"), dead: of("dead"),
    receivedLastHour: recent!.received, deliveredLastHour: recent!.delivered,
  };
}

const stats = (endpointId: string) => getEndpointStats({ ctx: org.ctx, input: { id: endpointId } });

describe("an endpoint's stats", () => {
  it("stay right as deliveries are stored, settled, replayed, buried and deleted, folded or not", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    await store(endpoint.id, "delivered", 300, 72, "old");
    await store(endpoint.id, "dead", 20, 72, "olddead");
    await store(endpoint.id, "pending", 7, 0, "new");
    await store(endpoint.id, "delivered", 5, 0, "fresh");
    expect(await stats(endpoint.id)).toMatchObject(await truth(endpoint.id));

    await rollUpDeliveryCounters();
    expect(await stats(endpoint.id)).toMatchObject(await truth(endpoint.id));

    // Changes of state: replays of a delivered and of a dead one, a bury, an outcome.
    await getSql()`update deliveries set status = 'pending' where id in ('dlv_old000000000001', 'dlv_olddead000000000001')`;
    await getSql()`update deliveries set status = 'dead' where id = 'dlv_new000000000001'`;
    await getSql()`update deliveries set status = 'delivered', delivered_at = now() where id = 'dlv_new000000000002'`;
    expect(await stats(endpoint.id)).toMatchObject(await truth(endpoint.id));

    // Retention (1 day) takes the old settled ones, in batches; one statement deletes for several endpoints too.
    await getSql()`update organizations set retention_days = 1 where id = ${org.organizationId}`;
    const system = createCtx(org.organizationId, { type: "system" });
    while ((await deleteExpiredDeliveries({ ctx: system, input: { limit: 100 } })) > 0);
    const after = await truth(endpoint.id);
    expect(after).toMatchObject({ delivered: 6, receivedLastHour: 12, deliveredLastHour: 6 }); // 5 fresh and the one that became delivered
    expect(await stats(endpoint.id)).toMatchObject(after);

    await rollUpDeliveryCounters();
    expect(await stats(endpoint.id)).toMatchObject(after);
  });

  it("do not count the endpoint's deliveries, however many it holds, waits on, buried or took in the last hour", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    await store(endpoint.id, "delivered", 2000, 3, "earlier");
    await store(endpoint.id, "delivered", 3000, 0, "busy");
    await store(endpoint.id, "pending", 2000, 2, "backlog");
    await store(endpoint.id, "dead", 1000, 2, "buried");
    await store(endpoint.id, "pending", 3, 0, "waiting");
    await getSql()`analyze deliveries`;
    const read = await countingReads(createCtx(org.organizationId, { type: "system" }), "deliveries", (ctx) => getEndpointStats({ ctx, input: { id: endpoint.id } }));
    expect(read.result).toMatchObject({ delivered: 5000, dead: 1000, pending: 2003, delivering: 0, receivedLastHour: 3003, deliveredLastHour: 3000 });
    expect(read.result.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(2 * 3600);
    // What reads deliveries: those delivering (none), and the oldest open one; or, on this small table and as the
    // planner may choose, a partial index of every organization's delivering ones (a few, dead row versions
    // included). Never the 8,003 the endpoint holds, the 2,003 it waits on, the 1,000 dead, nor the 3,003 of its
    // last hour.
    expect(read.entries).toBeLessThan(300);
  });

  it("read their endpoint's counter events, not those another organization's ingest left for the next roll-up", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    await store(endpoint.id, "pending", 2, 0, "mine");
    const busy = await createOrganizationFixture("Busy");
    await getSql()`
      insert into delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count)
      select 'ep_busy' || (g % 100), ${busy.organizationId}, 'dst_busy' || (g % 100), 'received', 0, 20 from generate_series(1, 20000) g`;
    await getSql()`analyze delivery_counter_events`;
    const read = await countingReads(createCtx(org.organizationId, { type: "system" }), "delivery_counter_events", (ctx) =>
      getEndpointStats({ ctx, input: { id: endpoint.id } }));
    expect(read.result).toMatchObject({ pending: 2, receivedLastHour: 2 });
    expect(read.entries).toBeLessThan(100); // not 20,000
  });
});
