// The charts' series equal what the deliveries say, for every range, before and after the roll-up folds the
// counter events (per minute, and per hour for the week and the month), per endpoint and per organization; the
// latency is the delivered deliveries' wait since receipt, summed when they became delivered.
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { useTestDatabase } from "@/test/db";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { insertDelivery } from "@/test/overview-deliveries";
import { NotFoundError } from "@/lib/errors";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { getTrafficSeries, TRAFFIC_RANGES, type TrafficSeries } from "./get-traffic-series";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

const NOW = new Date();
const ago = (seconds: number) => new Date(NOW.getTime() - seconds * 1000);

type Stored = { endpoint_id: string; received_at: Date; status: string; dead_reason: string | null; latency_ms: string | null };

/** What the deliveries themselves say, bucket by bucket of `series`. */
async function expectedFrom(endpointIds: string[], series: TrafficSeries) {
  const rows = await getSql()<Stored[]>`
    select endpoint_id, received_at, status, dead_reason,
      case when status = 'delivered' then floor(extract(epoch from delivered_at - pending_since) * 1000) end as latency_ms
    from deliveries where endpoint_id in ${getSql()(endpointIds)}`;
  const buckets = series.buckets.map((bucket) => {
    const from = Date.parse(bucket.start);
    const inIt = rows.filter((row) => row.received_at.getTime() >= from && row.received_at.getTime() < from + series.bucketSeconds * 1000);
    return {
      received: inIt.length,
      delivered: inIt.filter((row) => row.status === "delivered").length,
      failed: inIt.filter((row) => row.status === "dead" && row.dead_reason !== "buried").length,
    };
  });
  const delivered = rows.filter((row) => row.status === "delivered");
  // One delivery's wait is capped at an integer's range (migration 0047): the 40 days old one's.
  const latency = delivered.reduce((sum, row) => sum + Math.min(2 ** 31 - 1, Number(row.latency_ms)), 0);
  return { buckets, averageLatencyMs: delivered.length === 0 ? null : Math.round(latency / delivered.length) };
}

async function seed(organizationId: string, endpointId: string) {
  const ages = [30, 10 * 60, 50 * 60, 3 * 3600, 20 * 3600, 2 * 86_400, 6 * 86_400, 12 * 86_400, 29 * 86_400, 40 * 86_400];
  for (const age of ages) for (let i = 0; i < 4; i++) await insertDelivery(organizationId, endpointId, "pending", ago(age + i * 7));
  const sql = getSql();
  // Per age: one delivered, one failed, one buried, one still pending; each moved as the engine and a bury move them.
  const ids = await sql<{ id: string; n: number }[]>`
    select id, (row_number() over (order by received_at) - 1)::int % 4 as n from deliveries where endpoint_id = ${endpointId}`;
  const of = (n: number) => ids.filter((row) => row.n === n).map((row) => row.id);
  await sql`update deliveries set status = 'delivered', delivered_at = now(), attempt_count = 1 where id in ${sql(of(0))}`;
  await sql`update deliveries set status = 'dead', dead_reason = 'exhausted', attempt_count = 3 where id in ${sql(of(1))}`;
  await sql`update deliveries set status = 'dead', dead_reason = 'buried' where id in ${sql(of(2))}`;
}

describe("getTrafficSeries", () => {
  it("equals what the deliveries say, per range, per endpoint and per organization, before and after the roll-up", async () => {
    const org = await createOrganizationFixture();
    const orders = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Orders" });
    const refunds = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook", { name: "Refunds" });
    const other = await createOrganizationFixture();
    const theirs = await createEndpointFixture(other.ctx, "http://127.0.0.1:9/hook", { name: "Theirs" });
    await seed(org.organizationId, orders.id);
    await seed(org.organizationId, refunds.id);
    await seed(other.organizationId, theirs.id);
    // The series end now, after the seed: its deliveries were made delivered at the database's now(), which on a
    // busy machine is minutes past NOW (taken as the file loaded), and the latency is in the minute they were.
    const now = new Date();

    for (const when of ["before the roll-up", "after the roll-up"]) {
      if (when === "after the roll-up") expect(await rollUpDeliveryCounters()).toBeGreaterThan(0);
      for (const range of TRAFFIC_RANGES) {
        for (const [scope, endpointIds] of [[orders.id, [orders.id]], [undefined, [orders.id, refunds.id]]] as const) {
          const series = await getTrafficSeries({ ctx: org.ctx, input: { range, endpointId: scope, now } });
          const expected = await expectedFrom([...endpointIds], series);
          const about = `${when}, ${range}, ${scope ?? "the organization"}`;
          expect(series.buckets.length, about).toBe({ "1h": 60, "24h": 24, "7d": 168, "30d": 30 }[range]);
          expect(series.buckets.map(({ received, delivered, failed }) => ({ received, delivered, failed })), about).toEqual(expected.buckets);
          const received = expected.buckets.reduce((sum, b) => sum + b.received, 0);
          expect(received, about).toBeGreaterThan(0);
          expect(series.totals.received, about).toBe(received);
          // Every delivery was delivered now: the latency is all in the newest bucket, the same whatever the range.
          expect(series.totals.averageLatencyMs, about).toBe(expected.averageLatencyMs);
          expect(series.buckets.at(-1)!.averageLatencyMs, about).toBe(expected.averageLatencyMs);
          expect(series.totals.successRate, about).toBe(series.totals.delivered / (series.totals.delivered + series.totals.failed));
        }
      }
    }
    // The month holds 29 days ago, not 40; a delivery's latency counts from its receipt: 29 days and more.
    const month = await getTrafficSeries({ ctx: org.ctx, input: { range: "30d", endpointId: orders.id, now: NOW } });
    expect(month.totals).toMatchObject({ received: 36, delivered: 9, failed: 9 });
    expect(month.totals.averageLatencyMs).toBeGreaterThan(86_400_000);
  });

  it("refuses another organization's endpoint and an unknown range", async () => {
    const org = await createOrganizationFixture();
    const other = await createOrganizationFixture();
    const theirs = await createEndpointFixture(other.ctx, "http://127.0.0.1:9/hook", { name: "Theirs" });
    await expect(getTrafficSeries({ ctx: org.ctx, input: { endpointId: theirs.id } })).rejects.toBeInstanceOf(NotFoundError);
    await expect(getTrafficSeries({ ctx: org.ctx, input: { range: "2w" as never } })).rejects.toThrow(/range/);
  });
});
