// How getOverview counts: receipts and the open, retrying and dead deliveries of the day from the per-minute
// counts (agreeing with the rows, before and after the roll-up), and reads bounded by what it shows, not by an
// endpoint's deliveries, backlog or other organizations' counters. Its figures are get-overview.int.test.ts's.
import { describe, expect, it } from "vitest";
import { getDb, getSql } from "@/db";
import { deliveries } from "@/db/schema";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { newId } from "@/lib/ids";
import { useTestDatabase } from "@/test/db";
import { countingReads } from "@/test/counting-reads";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { insertDelivery } from "@/test/overview-deliveries";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { buryDelivery } from "@/lib/delivery/bury-delivery";
import { replayDelivery } from "@/lib/delivery/replay-delivery";
import { overviewHoursFromRows } from "@/test/overview-hours";
import { getOverview } from "./get-overview";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

// The clock's own time: receipts are counted per minute, and a roll-up (other test files run it) keeps only the
// minutes of the last 25 hours.
const NOW = new Date();
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);

describe("the overview counts receipts from the per-minute counts", () => {
  it("reads none of a healthy endpoint's 3,000 deliveries of the day, before and after the roll-up", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Busy" });
    // 3,000 delivered over the last 20 hours, one every 24 s from the start of now's minute, and one dead now.
    const minute = new Date(Math.floor(NOW.getTime() / 60_000) * 60_000);
    await getSql()`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since, updated_at, delivered_at)
      select ${newId("dlv")} || lpad(g::text, 5, '0'), ${org.organizationId}, ${endpoint.id}, ${defaultDestinationId(endpoint.id)}, 'evt_busy_' || g, 'delivered', 2,
        ${minute}::timestamptz - g * interval '24 seconds', ${minute}::timestamptz - g * interval '24 seconds', ${NOW}::timestamptz, ${NOW}::timestamptz
      from generate_series(0, 2999) g`;
    await insertDelivery(org.organizationId, endpoint.id, "dead", ago(5), 4);
    await getSql()`analyze deliveries`;
    const expected = { received: 3001, delivered: 3000, dead: 1, buried: 0, waiting: 0, successRate: 3000 / 3001, refused: 0, filtered: 0 };
    for (const when of ["not folded yet", "folded"]) {
      if (when === "folded") await rollUpDeliveryCounters();
      const read = await countingReads(org.ctx, "deliveries", (ctx) => getOverview({ ctx, input: { now: NOW } }));
      const [busy] = read.result.endpoints;
      expect(read.entries, when).toBeLessThan(50); // the dead one and the backlog's first entry, not 3,001 receipts
      expect(busy!.last24h, when).toEqual(expected);
      expect(busy!.hourly.find((h) => h.hoursAgo === 0), when).toEqual({ hoursAgo: 0, received: 149, delivered: 148, dead: 1, retrying: 0 });
      // Hour 0 is now's minute and the 59 before it (148 of one every 24 s); hour 19 a whole hour's 150.
      expect(busy!.hourly.find((h) => h.hoursAgo === 19), when).toMatchObject({ received: 150, delivered: 150 });
    }
  });
});

const hoursFromRows = (endpointId: string) => overviewHoursFromRows(getSql(), endpointId, NOW);

describe("the overview counts an endpoint's open, retrying and dead deliveries of the day by receipt", () => {
  it("reads none of a down destination's 3,000 deliveries of the day, before and after the roll-up", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Down today" });
    // Down for the last 20 hours: one delivery every 24 s, every other one failed twice and waiting for its
    // next attempt, one in 100 given up; the rest never tried (a paused endpoint's, or queued).
    const minute = new Date(Math.floor(NOW.getTime() / 60_000) * 60_000);
    await getSql()`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since, updated_at, attempt_count, auto_attempt_count)
      select ${newId("dlv")} || lpad(g::text, 5, '0'), ${org.organizationId}, ${endpoint.id}, ${defaultDestinationId(endpoint.id)}, 'evt_down_' || g,
        case when g % 100 = 0 then 'dead' else 'pending' end, 2,
        ${minute}::timestamptz - g * interval '24 seconds', ${minute}::timestamptz - g * interval '24 seconds', ${NOW}::timestamptz,
        case when g % 2 = 0 then 2 else 0 end, case when g % 2 = 0 then 2 else 0 end
      from generate_series(0, 2999) g`;
    await getSql()`analyze deliveries`;
    const hours = await hoursFromRows(endpoint.id);
    expect(hours.reduce((sum, h) => sum + h.retrying, 0)).toBe(1470);
    for (const when of ["not folded yet", "folded"]) {
      if (when === "folded") await rollUpDeliveryCounters();
      const read = await countingReads(org.ctx, "deliveries", (ctx) => getOverview({ ctx, input: { now: NOW } }));
      const [down] = read.result.endpoints;
      expect(read.entries, when).toBeLessThan(50); // the backlog's first entry, not 3,000 open deliveries
      expect(down!.last24h, when).toEqual({ received: 3000, delivered: 0, dead: 30, buried: 0, waiting: 2970, successRate: 0, refused: 0, filtered: 0 });
      expect(down!.hourly, when).toEqual(hours);
    }
  });

  it("keeps no count for a minute whose deliveries have all settled, so a healthy endpoint's hours read its receipts alone", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Settles" });
    await insertDelivery(org.organizationId, endpoint.id, "pending", ago(600));
    await insertDelivery(org.organizationId, endpoint.id, "pending", ago(600));
    const counts = async () => getSql()<{ event: string; count: number }[]>`
      select event, count::int as count from delivery_counts_by_minute where endpoint_id = ${endpoint.id} and event like '%_by_receipt' order by event`;
    await rollUpDeliveryCounters();
    expect(await counts()).toEqual([{ event: "open_by_receipt", count: 2 }]);
    await getSql()`update deliveries set status = 'delivered' where endpoint_id = ${endpoint.id}`;
    await rollUpDeliveryCounters();
    expect(await counts()).toEqual([]);
    const [settles] = (await getOverview({ ctx: org.ctx, input: { now: NOW } })).endpoints;
    expect(settles!.last24h).toMatchObject({ received: 2, delivered: 2, dead: 0, waiting: 0 });
  });

  it("follows every change of state: claims, failures, an attempt not counted, deliveries, give-ups, replays and buries", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Busy day" });
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const id = newId("dlv");
      ids.push(id);
      const receivedAt = ago(30 + i * 2111); // across the day, a few in an hour
      await getDb().insert(deliveries).values({ id, organizationId: org.organizationId, endpointId: endpoint.id, destinationId: defaultDestinationId(endpoint.id), externalId: `evt_${i}`, status: "pending", sizeBytes: 2, receivedAt, pendingSince: receivedAt, updatedAt: receivedAt });
    }
    const sql = getSql();
    // The engine's writes, as its statements make them (claimed-attempt.ts, finish-attempt.ts); replays and buries by their own code.
    const steps: Record<string, (id: string) => Promise<unknown>> = {
      claim: (id) => sql`update deliveries set status = 'delivering', attempt_count = attempt_count + 1, auto_attempt_count = auto_attempt_count + 1 where id = ${id} and status = 'pending'`,
      fail: (id) => sql`update deliveries set status = 'pending' where id = ${id} and status = 'delivering'`,
      notCounted: (id) => sql`update deliveries set status = 'pending', auto_attempt_count = auto_attempt_count - 1 where id = ${id} and status = 'delivering'`,
      deliver: (id) => sql`update deliveries set status = 'delivered' where id = ${id} and status in ('delivering', 'dead')`,
      giveUp: (id) => sql`update deliveries set status = 'dead' where id = ${id} and status = 'delivering'`,
      replay: (id) => replayDelivery({ ctx: org.ctx, input: { id } }).catch(() => undefined),
      bury: (id) => buryDelivery({ ctx: org.ctx, input: { id } }).catch(() => undefined),
    };
    const kinds = Object.keys(steps);
    let seed = 7;
    const random = (n: number) => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) % n);
    for (let round = 0; round < 6; round++) {
      for (let step = 0; step < 60; step++) await steps[kinds[random(kinds.length)]!]!(ids[random(ids.length)]!);
      if (round % 2 === 1) await rollUpDeliveryCounters();
      const [busy] = (await getOverview({ ctx: org.ctx, input: { now: NOW } })).endpoints;
      const hours = await hoursFromRows(endpoint.id);
      expect(busy!.hourly, `round ${round}`).toEqual(hours);
    }
    const totals = await getSql()<{ status: string; n: number }[]>`select status, count(*)::int as n from deliveries where endpoint_id = ${endpoint.id} group by 1`;
    expect(totals.length, "the walk reached several states").toBeGreaterThan(2);
  });
});

describe("the overview does not count an endpoint's backlog", () => {
  it("reads the oldest of a destination's 3,000 waiting deliveries, not all of them", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Down" });
    // Down for two days: received before the 24-hour window, so only the backlog figures could read them.
    await getSql()`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since, updated_at)
      select 'dlv_down' || lpad(g::text, 21, '0'), ${org.organizationId}, ${endpoint.id}, ${defaultDestinationId(endpoint.id)}, 'evt_down_' || g, 'pending', 2,
        ${ago(3 * 86_400)}::timestamptz + g * interval '1 second', ${ago(3 * 86_400)}::timestamptz + g * interval '1 second', ${ago(3 * 86_400)}::timestamptz
      from generate_series(1, 3000) g`;
    await getSql()`analyze deliveries`;
    const read = await countingReads(org.ctx, "deliveries", (ctx) => getOverview({ ctx, input: { now: NOW } }));
    expect(read.result.endpoints[0]).toMatchObject({ pending: 3000, oldestPendingAgeSeconds: 3 * 86_400 - 1 });
    expect(read.entries).toBeLessThan(300);
  });
});

describe("the overview reads its own organization's counters", () => {
  it("not the counters of other organizations' endpoints", async () => {
    const org = await createOrganizationFixture();
    await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Mine" });
    const others = await createOrganizationFixture("Others");
    await getSql()`
      insert into endpoints (id, organization_id, name, provider)
      select 'ep_other' || g, ${others.organizationId}, 'other ' || g, 'none' from generate_series(1, 300) g`;
    await getSql()`
      insert into destinations (id, organization_id, endpoint_id, name, url, is_default)
      select 'dst_other' || g, ${others.organizationId}, 'ep_other' || g, 'Default', 'https://example.com/', true from generate_series(1, 300) g`;
    await getSql()`
      insert into delivery_counters (endpoint_id, organization_id, destination_id, event, attempts, count)
      select 'ep_other' || g, ${others.organizationId}, 'dst_other' || g, event, 0, 10
      from generate_series(1, 300) g cross join unnest(array['received', 'delivered', 'dead']) event`;
    await getSql()`analyze delivery_counters`;
    const read = await countingReads(org.ctx, "delivery_counters", (ctx) => getOverview({ ctx, input: { now: NOW } }));
    expect(read.result.endpoints).toHaveLength(1);
    expect(read.entries).toBeLessThan(100); // not the 900 rows of the other organization's endpoints
  });
});

describe("the overview reads its own endpoints' counter events", () => {
  it("not the events another organization's ingest left for the next roll-up", async () => {
    const org = await createOrganizationFixture();
    await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Mine" });
    await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Mine too" });
    const busy = await createOrganizationFixture("Busy");
    // A minute of a busy tenant's batches: one event row per endpoint per statement.
    await getSql()`
      insert into delivery_counter_events (endpoint_id, organization_id, destination_id, event, attempts, count)
      select 'ep_busy' || (g % 100), ${busy.organizationId}, 'dst_busy' || (g % 100), 'received', 0, 20 from generate_series(1, 20000) g`;
    await getSql()`analyze delivery_counter_events`;
    const read = await countingReads(org.ctx, "delivery_counter_events", (ctx) => getOverview({ ctx, input: { now: NOW } }));
    expect(read.result.endpoints).toHaveLength(2);
    expect(read.entries).toBeLessThan(100); // not 2 × 20,000
  });
});
