// Stats and /api/metrics per destination (#43): an endpoint with three destinations, each with its own deliveries
// in every state, changed after they were stored (settled, replayed, buried, deleted); each destination's figures
// equal its own rows, folded into the counters or not, and its endpoint's are their sums.
import { beforeAll, describe, expect, it } from "vitest";
import * as metricsRoute from "@/app/api/metrics/route";
import * as destinationStats from "@/app/api/v1/endpoints/[id]/destinations/[destinationId]/stats/route";
import * as endpointStats from "@/app/api/v1/endpoints/[id]/stats/route";
import { getSql } from "@/db";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { useTestDatabase } from "@/test/db";
import { create, endpointOf } from "@/test/destination-api";
import { callRoute, createOrganizationFixture } from "@/test/fixtures";
import { parseExposition, value } from "@/test/metrics-exposition";
import { rollUpDeliveryCounters } from "./roll-up-delivery-counters";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
const TOKEN = "metrics-token-for-per-destination-tests";

type Org = Awaited<ReturnType<typeof createOrganizationFixture>>;
let acme: Org;
let globex: Org;
let endpointId: string;
let lanes: string[];

/** `count` deliveries of `destinationId` in `status`, received `minutesAgo`; the triggers count them. */
async function store(organizationId: string, destinationId: string, status: string, count: number, minutesAgo: number, prefix: string) {
  await getSql()`
    insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since, updated_at, delivered_at, attempt_count)
    select 'dlv_' || ${prefix} || lpad(g::text, 8, '0'), ${organizationId}, ${endpointId}, ${destinationId}, ${prefix} || g, ${status}, 10,
      now() - make_interval(mins => ${minutesAgo}), now() - make_interval(mins => ${minutesAgo}), now(),
      case when ${status} = 'delivered' then now() end, case when ${status} in ('delivered', 'dead') then 2 else 0 end
    from generate_series(1, ${count}) g`;
}

/** What a destination's (or, with none, the endpoint's) rows say, as the stats name it. */
async function truth(destinationId?: string) {
  const rows = await getSql()<{ status: string; n: number; oldest: number | null }[]>`
    select status, count(*)::int as n, floor(extract(epoch from now() - min(pending_since)))::int as oldest from deliveries
    where endpoint_id = ${endpointId} and (${destinationId ?? null}::text is null or destination_id = ${destinationId ?? null}) group by 1`;
  const of = (status: string) => rows.find((row) => row.status === status)?.n ?? 0;
  const open = rows.filter((row) => row.status === "pending" || row.status === "delivering").map((row) => row.oldest!);
  return { pending: of("pending"), delivering: of("delivering"), delivered: of("delivered"), dead: of("dead"), oldest: open.length ? Math.max(...open) : 0 };
}

const statsOf = async (apiKey: string, destinationId?: string) => {
  const res = destinationId
    ? await callRoute(destinationStats.GET, { apiKey, params: { id: endpointId, destinationId } })
    : await callRoute(endpointStats.GET, { apiKey, params: { id: endpointId } });
  return res;
};

async function expectStatsMatchRows(when: string) {
  for (const destinationId of [undefined, ...lanes]) {
    const { status, body } = await statsOf(acme.apiKey, destinationId);
    expect(status).toBe(200);
    const rows = await truth(destinationId);
    const what = `${destinationId ?? "endpoint"}, ${when}`;
    expect({ pending: body.pending, delivering: body.delivering, delivered: body.delivered, dead: body.dead }, what)
      .toEqual({ pending: rows.pending, delivering: rows.delivering, delivered: rows.delivered, dead: rows.dead });
    expect(Math.abs(body.oldestPendingAgeSeconds - rows.oldest), what).toBeLessThanOrEqual(2); // read a moment apart
  }
}

beforeAll(async () => {
  acme = await createOrganizationFixture("Acme");
  globex = await createOrganizationFixture("Globex");
  endpointId = await endpointOf(acme.apiKey);
  const extra = [];
  for (const name of ["Billing", "Analytics"]) {
    const made = await create(acme.apiKey, endpointId, { name, url: `http://127.0.0.1:9/${name.toLowerCase()}` });
    expect(made.status).toBe(201);
    extra.push(made.body.id as string);
  }
  lanes = [defaultDestinationId(endpointId), ...extra];
  const [main, billing, analytics] = lanes as [string, string, string];
  // Each destination its own mix and its own oldest waiting delivery.
  await store(acme.organizationId, main, "delivered", 12, 90, "md");
  await store(acme.organizationId, main, "pending", 3, 30, "mp");
  await store(acme.organizationId, billing, "dead", 5, 40, "bx");
  await store(acme.organizationId, billing, "pending", 7, 200, "bp");
  await store(acme.organizationId, billing, "delivering", 2, 10, "bd");
  await store(acme.organizationId, analytics, "delivered", 4, 20, "ad");
});

describe("stats per destination", () => {
  it("count each destination's own deliveries as they change, folded or not, and the endpoint's are their sums", async () => {
    await expectStatsMatchRows("as stored");
    await rollUpDeliveryCounters();
    await expectStatsMatchRows("after a roll-up");
    const [, billing, analytics] = lanes as [string, string, string];
    // A replay of billing's dead ones, a bury of a waiting one, analytics' delivered ones deleted (retention).
    await getSql()`update deliveries set status = 'pending', pending_since = now(), updated_at = now() where destination_id = ${billing} and status = 'dead' and id like 'dlv_bx%' and right(id, 1) in ('1', '2')`;
    await getSql()`update deliveries set status = 'dead', updated_at = now() where destination_id = ${billing} and id = 'dlv_bp00000001'`;
    await getSql()`delete from deliveries where destination_id = ${analytics} and id in ('dlv_ad00000001', 'dlv_ad00000002')`;
    await expectStatsMatchRows("changed, not folded");
    await rollUpDeliveryCounters();
    await expectStatsMatchRows("changed, folded");
    const endpoint = (await statsOf(acme.apiKey)).body;
    const perDestination = await Promise.all(lanes.map(async (id) => (await statsOf(acme.apiKey, id)).body));
    expect(endpoint.pending).toBe(perDestination.reduce((sum, s) => sum + s.pending, 0));
    // Ages in whole seconds, read a moment apart: a busy machine crosses a second between the reads.
    expect(Math.abs(endpoint.oldestPendingAgeSeconds - Math.max(...perDestination.map((s) => s.oldestPendingAgeSeconds)))).toBeLessThanOrEqual(2);
    expect(perDestination.map((s) => s.pending)).toEqual([3, 8, 0]);
  });

  it("answers 404 for another organization's destination and for an unknown one", async () => {
    expect((await statsOf(globex.apiKey, lanes[1])).status).toBe(404);
    expect((await statsOf(acme.apiKey, "dst_00000000000000000000000000")).status).toBe(404);
  });
});

describe("/api/metrics per destination", () => {
  it("gives each destination its own series beside its endpoint's sums", async () => {
    process.env.METRICS_TOKEN = TOKEN;
    try {
      const response = await metricsRoute.GET(new Request("http://inbox.test/api/metrics", { headers: { authorization: `Bearer ${TOKEN}` } }));
      expect(response.status).toBe(200);
      const m = parseExposition(await response.text());
      expect(m.types.get("inbox_destination_deliveries_pending")).toBe("gauge");
      let pending = 0;
      for (const destinationId of lanes) {
        const labels = { destination_id: destinationId, endpoint_id: endpointId, organization_id: acme.organizationId };
        const rows = await truth(destinationId);
        expect(value(m, "inbox_destination_deliveries_pending", labels), destinationId).toBe(rows.pending);
        expect(value(m, "inbox_destination_deliveries_delivering", labels), destinationId).toBe(rows.delivering);
        expect(Math.abs(value(m, "inbox_destination_deliveries_oldest_pending_age_seconds", labels) - rows.oldest), destinationId).toBeLessThanOrEqual(2);
        expect(value(m, "inbox_destination_delivery_attempts_count", labels), destinationId)
          .toBe(value(m, "inbox_destination_deliveries_delivered_total", labels) + value(m, "inbox_destination_deliveries_dead_total", labels));
        pending += rows.pending;
      }
      expect(value(m, "inbox_deliveries_pending", { endpoint_id: endpointId, organization_id: acme.organizationId })).toBe(pending);
      const [main, billing] = lanes as [string, string];
      expect(value(m, "inbox_destination_deliveries_delivered_total", { destination_id: main })).toBe(12);
      expect(value(m, "inbox_destination_deliveries_received_total", { destination_id: billing })).toBe(14);
    } finally {
      delete process.env.METRICS_TOKEN;
    }
  });
});
