// Issue #45 part 4: the digest's figures are the counters' (as the overview and the stats read them), per
// endpoint; the oldest pending age and the top errors per destination; the mail escapes names in its HTML and
// links to the dashboard at APP_URL.
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import * as destinationStatsRoute from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/stats/route";
import * as statsRoute from "@/app/api/v1/endpoints/[id]/stats/route";
import { getDb } from "@/db";
import { deliveries, deliveryPayloads, type DeliveryStatus } from "@/db/schema";
import { createDestination } from "@/lib/destinations/create-destination";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { getOverview } from "@/lib/endpoints/get-overview";
import { newId } from "@/lib/ids";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { useTestDatabase } from "@/test/db";
import { alertingEndpointFixture, later, minutes } from "@/test/alert-fixtures";
import { callRoute } from "@/test/fixtures";
import { DIGEST_WALK, gatherDigestFigures, type DigestFigures } from "./gather-digest-figures";
import { renderDigestMail } from "./render-digest-mail";

process.env.APP_URL = "https://digest.example.test";
useTestDatabase();

const NAME = `<b>Tom & "Jerry"</b>`;
let fixture: Awaited<ReturnType<typeof alertingEndpointFixture>>;
let warehouseId: string;
let now: Date;
let figures: DigestFigures;

async function insert(destinationId: string, status: DeliveryStatus, receivedAt: Date, lastError: string | null = null, owner = fixture) {
  const id = newId("dlv");
  const { organizationId, endpoint } = owner;
  await getDb().insert(deliveries).values({
    id, organizationId, endpointId: endpoint.id, destinationId, externalId: `evt_${randomBytes(6).toString("hex")}`, status, sizeBytes: 2,
    receivedAt, pendingSince: receivedAt, updatedAt: receivedAt, lastError,
  });
  await getDb().insert(deliveryPayloads).values({ deliveryId: id, organizationId, headers: {}, body: Buffer.from("{}") });
}

beforeAll(async () => {
  fixture = await alertingEndpointFixture({ name: NAME, thresholdSeconds: null });
  warehouseId = (await createDestination({ ctx: fixture.ctx, input: { endpointId: fixture.endpoint.id, body: { name: "Warehouse <2>", url: "http://127.0.0.1:9/w" } } })).id;
  const main = defaultDestinationId(fixture.endpoint.id);
  now = new Date();
  const ago = (m: number) => later(now, -minutes(m));
  // Outside the window: received (and dead) 30 hours ago.
  await insert(main, "dead", ago(30 * 60), "HTTP 418: old");
  for (const m of [50, 45, 44]) await insert(main, "delivered", ago(m));
  await insert(main, "dead", ago(43), "HTTP 500:   upstream\ndown");
  await insert(main, "dead", ago(42), "timeout after 15000 ms");
  // Some events folded by the roll-up, the rest not yet: the figures read both.
  await rollUpDeliveryCounters();
  await insert(main, "dead", ago(41), "HTTP 500: upstream down");
  await insert(main, "pending", ago(40), "HTTP 500: upstream down");
  await insert(main, "filtered", ago(39));
  await insert(warehouseId, "pending", ago(10), "connection refused");
  await insert(warehouseId, "dead", ago(9), "connection refused");
  figures = await gatherDigestFigures({ ctx: fixture.ctx, input: { now } });
});

describe("the digest's figures", () => {
  it("per endpoint over the last 24 h: what was received, delivered, dead and filtered, as the overview and the stats count them", async () => {
    const [endpoint] = figures.endpoints;
    expect(figures.endpoints).toHaveLength(1);
    expect(endpoint).toMatchObject({ id: fixture.endpoint.id, name: NAME, received: 9, delivered: 3, dead: 4, filtered: 1 });
    const overview = (await getOverview({ ctx: fixture.ctx, input: { now } })).endpoints[0]!;
    expect({ received: endpoint!.received, delivered: endpoint!.delivered, dead: endpoint!.dead, filtered: endpoint!.filtered }).toEqual({
      received: overview.last24h.received, delivered: overview.last24h.delivered, dead: overview.last24h.dead, filtered: overview.last24h.filtered,
    });
    expect(endpoint!.oldestPendingAgeSeconds).toBe(overview.oldestPendingAgeSeconds);
    const stats = await callRoute(statsRoute.GET, { apiKey: fixture.apiKey, params: { id: fixture.endpoint.id } });
    expect(stats.status).toBe(200);
    // Everything in the window arrived within the hour; the stats' dead also holds the one from 30 hours ago.
    expect(stats.body).toMatchObject({ receivedLastHour: endpoint!.received, delivered: endpoint!.delivered, dead: endpoint!.dead + 1, pending: 2 });
    // Read a moment apart: 4 s apart beside a busy CI run.
    expect(Math.abs(stats.body.oldestPendingAgeSeconds - endpoint!.oldestPendingAgeSeconds)).toBeLessThanOrEqual(10);
  });

  it("per destination: its own counts (as its stats count them), oldest pending age, and top errors (dead in the window or waiting, whitespace folded)", async () => {
    const [main, warehouse] = figures.endpoints[0]!.destinations;
    expect(main).toMatchObject({ id: defaultDestinationId(fixture.endpoint.id), received: 7, delivered: 3, dead: 3, oldestPendingAgeSeconds: 40 * 60 });
    expect(main!.topErrors).toEqual([{ error: "HTTP 500: upstream down", count: 3 }, { error: "timeout after 15000 ms", count: 1 }]);
    expect(warehouse).toMatchObject({ id: warehouseId, name: "Warehouse <2>", received: 2, delivered: 0, dead: 1, oldestPendingAgeSeconds: 10 * 60 });
    expect(warehouse!.topErrors).toEqual([{ error: "connection refused", count: 2 }]);
    const stats = await callRoute(destinationStatsRoute.GET, { apiKey: fixture.apiKey, params: { id: fixture.endpoint.id, destinationId: warehouseId } });
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ receivedLastHour: warehouse!.received, delivered: warehouse!.delivered, dead: warehouse!.dead, pending: 1 });
  });

  it("sees no other organization's endpoints", async () => {
    const other = await alertingEndpointFixture({ name: "Other" });
    const theirs = await gatherDigestFigures({ ctx: other.ctx, input: { now } });
    expect(theirs.endpoints.map((endpoint) => endpoint.name)).toEqual(["Other"]);
    expect(theirs.endpoints[0]).toMatchObject({ received: 0, dead: 0, destinations: [{ topErrors: [] }] });
  });
});

describe("the digest mail", () => {
  it("says the figures in text and HTML, escapes every name and error in the HTML, and links to the dashboard at APP_URL", () => {
    const mail = renderDigestMail({ organizationName: "Acme <Ops>", figures });
    expect(mail.subject).toBe(`[Webhook Inbox] Daily digest: Acme <Ops>, ${now.toISOString().slice(0, 10)}`);
    expect(mail.text).toContain(`Endpoint “${NAME}”: received 9 · delivered 3 · dead 4 · filtered 1 · oldest pending 40 min`);
    expect(mail.text).toContain("Destination “Warehouse <2>”: received 2 · delivered 0 · dead 1 · oldest pending 10 min");
    expect(mail.text).toContain("3 × HTTP 500: upstream down");
    expect(mail.text).toContain(`https://digest.example.test/endpoints/${fixture.endpoint.id}`);
    expect(mail.text).toContain(`https://digest.example.test/deliveries?endpointId=${fixture.endpoint.id}&status=dead`);
    expect(mail.text).toContain("Overview: https://digest.example.test/overview");

    expect(mail.html).not.toContain("<b>Tom");
    expect(mail.html).not.toContain("Warehouse <2>");
    expect(mail.html).not.toContain("Acme <Ops>");
    expect(mail.html).toContain("Endpoint “&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt;”");
    expect(mail.html).toContain("Warehouse &lt;2&gt;");
    expect(mail.html).toContain("3 × HTTP 500: upstream down");
    expect(mail.html).toContain(`<a href="https://digest.example.test/endpoints/${fixture.endpoint.id}">`);
    expect(mail.html).toContain(`<a href="https://digest.example.test/deliveries?endpointId=${fixture.endpoint.id}&amp;status=dead">`);
    expect(mail.html).toContain(`<a href="https://digest.example.test/overview">`);
  });
});

describe("a destination behind another's long backlog", () => {
  it("has its own oldest pending age, exact, however long the other's backlog", async () => {
    const big = await alertingEndpointFixture({ name: "Backlog", thresholdSeconds: null });
    const other = (await createDestination({ ctx: big.ctx, input: { endpointId: big.endpoint.id, body: { name: "Late", url: "http://127.0.0.1:9/l" } } })).id;
    const at = new Date();
    // More than DIGEST_WALK old ones to the default destination, then one younger to the other.
    await getDb().execute(sql`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since, updated_at)
      select 'dlv_walk' || lpad(n::text, 6, '0'), ${big.organizationId}, ${big.endpoint.id}, ${defaultDestinationId(big.endpoint.id)}, 'evt_' || n, 'pending', 2,
        ${at.toISOString()}::timestamptz - make_interval(mins => 120) + make_interval(secs => n), ${at.toISOString()}::timestamptz - make_interval(mins => 120) + make_interval(secs => n), now()
      from generate_series(1, ${DIGEST_WALK + 10}) n`);
    await insert(other, "pending", later(at, -minutes(5)), null, big);
    const [endpoint] = (await gatherDigestFigures({ ctx: big.ctx, input: { now: at } })).endpoints;
    expect(endpoint!.oldestPendingAgeSeconds).toBe(120 * 60 - 1);
    expect(endpoint!.destinations).toMatchObject([
      { id: defaultDestinationId(big.endpoint.id), oldestPendingAgeSeconds: 120 * 60 - 1, received: DIGEST_WALK + 10 },
      { id: other, oldestPendingAgeSeconds: 5 * 60, received: 1 },
    ]);
    expect(renderDigestMail({ organizationName: "B", figures: { from: at, to: at, endpoints: [endpoint!], omittedEndpoints: 0 } }).text).toContain(
      "Destination “Late”: received 1 · delivered 0 · dead 0 · oldest pending 5 min",
    );
  });
});
