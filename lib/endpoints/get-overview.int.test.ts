// getOverview's figures per endpoint: its backlog (pending, the oldest's age against its threshold) and its last
// 24 hours (received, delivered, dead, waiting, refused, filtered; the hourly buckets; the success rate).
// How it counts them, from the per-minute counts and with bounded reads, is get-overview-counts.int.test.ts's.
import { describe, expect, it } from "vitest";
import { getDb, getSql } from "@/db";
import { rejectedRequests } from "@/db/schema";
import { useTestDatabase } from "@/test/db";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { insertDelivery } from "@/test/overview-deliveries";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { buryDelivery } from "@/lib/delivery/bury-delivery";
import { replayDelivery } from "@/lib/delivery/replay-delivery";
import { getOverview } from "./get-overview";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

// The clock's own time: receipts are counted per minute, and a roll-up (other test files run it) keeps only the
// minutes of the last 25 hours.
const NOW = new Date();
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);

async function refused(organizationId: string, endpointId: string, at: Date) {
  await getDb().insert(rejectedRequests).values({ organizationId, endpointId, at, reason: "missing_signature", message: "unsigned", headerNames: [] });
}

describe("the overview counts each endpoint's backlog and last 24 hours", () => {
  it("reports pending, the oldest pending age over the threshold, hourly buckets and the success rate", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Orders", alertPendingAgeSeconds: 600 });
    const id = endpoint.id;
    await insertDelivery(org.organizationId, id, "pending", ago(900), 1); // 15 min old, failed once
    await insertDelivery(org.organizationId, id, "delivering", ago(120), 0);
    await insertDelivery(org.organizationId, id, "pending", ago(30), 0);
    await insertDelivery(org.organizationId, id, "delivered", ago(3 * 3600 + 10), 1);
    await insertDelivery(org.organizationId, id, "delivered", ago(3 * 3600 + 20), 2);
    await insertDelivery(org.organizationId, id, "delivered", ago(60), 1);
    await insertDelivery(org.organizationId, id, "dead", ago(23 * 3600 + 100), 8);
    await insertDelivery(org.organizationId, id, "delivered", ago(25 * 3600), 1); // older than 24 h: not counted
    await insertDelivery(org.organizationId, id, "pending", ago(2 * 86_400), 3); // old backlog still counts as pending

    const { endpoints } = await getOverview({ ctx: org.ctx, input: { now: NOW } });
    expect(endpoints).toHaveLength(1);
    const orders = endpoints[0]!;
    expect(orders).toMatchObject({ id, name: "Orders", paused: false, pending: 4, oldestPendingAgeSeconds: 2 * 86_400, overThreshold: true, alertPendingAgeSeconds: 600 });
    expect(orders.last24h).toEqual({ received: 7, delivered: 3, dead: 1, buried: 0, waiting: 3, successRate: 3 / 4, refused: 0, filtered: 0 });
    expect(orders.hourly).toHaveLength(24);
    expect(orders.hourly.map((h) => h.hoursAgo)).toEqual(Array.from({ length: 24 }, (_, i) => 23 - i));
    const at = (hoursAgo: number) => orders.hourly.find((h) => h.hoursAgo === hoursAgo)!;
    expect(at(0)).toEqual({ hoursAgo: 0, received: 4, delivered: 1, dead: 0, retrying: 1 });
    expect(at(3)).toEqual({ hoursAgo: 3, received: 2, delivered: 2, dead: 0, retrying: 0 });
    expect(at(23)).toEqual({ hoursAgo: 23, received: 1, delivered: 0, dead: 1, retrying: 0 });
    expect(orders.hourly.reduce((sum, h) => sum + h.received, 0)).toBe(7);
  });

  it("tells what a pause holds back from what is retrying or in flight", async () => {
    const org = await createOrganizationFixture();
    const held = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Held", paused: true });
    const busy = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Busy" });
    await insertDelivery(org.organizationId, held.id, "pending", ago(60));
    await insertDelivery(org.organizationId, held.id, "pending", ago(30), 2); // a retry, held all the same
    await insertDelivery(org.organizationId, held.id, "delivered", ago(90), 1);
    await insertDelivery(org.organizationId, busy.id, "pending", ago(60), 1);
    await insertDelivery(org.organizationId, busy.id, "delivering", ago(10));
    const { endpoints } = await getOverview({ ctx: org.ctx, input: { now: NOW } });
    const byName = Object.fromEntries(endpoints.map((endpoint) => [endpoint.name, endpoint]));
    expect(byName.Held).toMatchObject({ pending: 2, heldByPause: 2 });
    expect(byName.Busy).toMatchObject({ pending: 2, heldByPause: 0 });
  });

  it("shows a quiet endpoint with zeros, no success rate, and not over its threshold", async () => {
    const org = await createOrganizationFixture();
    const quiet = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Quiet", paused: true });
    const busy = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Busy", alertPendingAgeSeconds: 3600 });
    await insertDelivery(org.organizationId, busy.id, "pending", ago(60));

    const { endpoints } = await getOverview({ ctx: org.ctx, input: { now: NOW } });
    expect(endpoints.map((e) => e.name)).toEqual(["Busy", "Quiet"]);
    const [b, q] = endpoints;
    expect(b).toMatchObject({ pending: 1, oldestPendingAgeSeconds: 60, overThreshold: false });
    expect(q).toMatchObject({ paused: true, pending: 0, oldestPendingAgeSeconds: 0, overThreshold: false });
    expect(q!.last24h).toEqual({ received: 0, delivered: 0, dead: 0, buried: 0, waiting: 0, successRate: null, refused: 0, filtered: 0 });
    expect(q!.hourly.every((h) => h.received === 0 && h.delivered === 0 && h.dead === 0 && h.retrying === 0)).toBe(true);
  });

  it("never shows another organization's endpoints or deliveries", async () => {
    const mine = await createOrganizationFixture();
    const theirs = await createOrganizationFixture();
    const own = await createEndpointFixture(mine.ctx, "http://127.0.0.1:9/hook", { name: "Mine" });
    const other = await createEndpointFixture(theirs.ctx, "http://127.0.0.1:9/hook", { name: "Theirs" });
    await insertDelivery(theirs.organizationId, other.id, "pending", ago(500), 1);
    await insertDelivery(mine.organizationId, own.id, "delivered", ago(10), 1);

    const { endpoints } = await getOverview({ ctx: mine.ctx, input: { now: NOW } });
    expect(endpoints.map((e) => e.name)).toEqual(["Mine"]);
    expect(endpoints[0]).toMatchObject({ pending: 0, last24h: { received: 1, delivered: 1, dead: 0, successRate: 1, refused: 0 } });
  });

  it("rates success over settled deliveries only: a replay waiting again moves it not, and is not shown as failing", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Replays" });
    await insertDelivery(org.organizationId, endpoint.id, "delivered", ago(600), 1);
    await insertDelivery(org.organizationId, endpoint.id, "pending", ago(500), 1, 0); // a delivered one, replayed: waits again
    await insertDelivery(org.organizationId, endpoint.id, "dead", ago(400), 3);
    await insertDelivery(org.organizationId, endpoint.id, "pending", ago(300), 2); // failed twice, waits for its third attempt

    const [replays] = (await getOverview({ ctx: org.ctx, input: { now: NOW } })).endpoints;
    expect(replays!.last24h).toMatchObject({ received: 4, delivered: 1, dead: 1, waiting: 2, successRate: 0.5 });
    expect(replays!.hourly.find((h) => h.hoursAgo === 0)).toEqual({ hoursAgo: 0, received: 4, delivered: 1, dead: 1, retrying: 1 });
  });

  it("counts a buried delivery apart: not dead, not in the success rate, and again as before once replayed", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Buried" });
    await insertDelivery(org.organizationId, endpoint.id, "delivered", ago(600), 1);
    await insertDelivery(org.organizationId, endpoint.id, "dead", ago(500), 3); // failed
    await insertDelivery(org.organizationId, endpoint.id, "pending", ago(400), 0);
    await insertDelivery(org.organizationId, endpoint.id, "pending", ago(300), 0);
    const [first, second] = await getSql()<{ id: string }[]>`select id from deliveries where endpoint_id = ${endpoint.id} and status = 'pending' order by received_at`;
    await buryDelivery({ ctx: org.ctx, input: { id: first!.id } });
    await buryDelivery({ ctx: org.ctx, input: { id: second!.id } });
    for (const when of ["not folded yet", "folded"]) {
      if (when === "folded") await rollUpDeliveryCounters();
      const [buried] = (await getOverview({ ctx: org.ctx, input: { now: NOW } })).endpoints;
      expect(buried!.last24h, when).toMatchObject({ received: 4, delivered: 1, dead: 1, buried: 2, waiting: 0, successRate: 0.5 });
      expect(buried!.hourly.find((h) => h.hoursAgo === 0), when).toEqual({ hoursAgo: 0, received: 4, delivered: 1, dead: 1, retrying: 0 });
    }
    await replayDelivery({ ctx: org.ctx, input: { id: first!.id } });
    const [after] = (await getOverview({ ctx: org.ctx, input: { now: NOW } })).endpoints;
    expect(after!.last24h).toMatchObject({ received: 4, delivered: 1, dead: 1, buried: 1, waiting: 1, successRate: 0.5 });
  });

  it("counts each endpoint's refused requests of the window", async () => {
    const org = await createOrganizationFixture();
    const signed = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Signed" });
    const other = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Other" });
    await refused(org.organizationId, signed.id, ago(60));
    await refused(org.organizationId, signed.id, ago(23 * 3600));
    await refused(org.organizationId, signed.id, ago(25 * 3600)); // before the window
    await refused(org.organizationId, other.id, ago(10));

    const { endpoints } = await getOverview({ ctx: org.ctx, input: { now: NOW } });
    expect(Object.fromEntries(endpoints.map((e) => [e.name, e.last24h.refused]))).toEqual({ Signed: 2, Other: 1 });
  });

  it("counts the requests no destination took apart from those received, before and after the roll-up, less one a replay routed", async () => {
    const org = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Picky" });
    await insertDelivery(org.organizationId, endpoint.id, "filtered", ago(120));
    await insertDelivery(org.organizationId, endpoint.id, "filtered", ago(5 * 3600));
    await insertDelivery(org.organizationId, endpoint.id, "filtered", ago(25 * 3600)); // before the window
    await insertDelivery(org.organizationId, endpoint.id, "delivered", ago(60));
    const figures = async () => (await getOverview({ ctx: org.ctx, input: { now: NOW } })).endpoints[0]!.last24h;
    expect(await figures()).toMatchObject({ received: 1, delivered: 1, filtered: 2 });
    await rollUpDeliveryCounters();
    expect(await figures()).toMatchObject({ received: 1, delivered: 1, filtered: 2 });
    // Its filter now takes them: a replay routes the newest, which then counts as received (and waiting).
    const [newest] = await getSql()`select id from deliveries where endpoint_id = ${endpoint.id} and status = 'filtered' order by received_at desc limit 1`;
    await getSql()`insert into delivery_payloads (delivery_id, organization_id, headers, body) values (${newest!.id}, ${org.organizationId}, '{}', ${Buffer.from("{}")})`;
    await replayDelivery({ ctx: org.ctx, input: { id: newest!.id } });
    expect(await figures()).toMatchObject({ received: 2, filtered: 1, waiting: 1 });
  });
});
