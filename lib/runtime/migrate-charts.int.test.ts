// Migration 0047 (#47, charts) on a database before it: the hours of the last 25 hours are seeded from the minutes
// the roll-up kept, so the week's and month's charts show at once what the day's does, before and after the next
// roll-up (nothing counted twice); a delivery delivered after the upgrade adds its latency.
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { ONLINE_INDEXES } from "@/db/online-indexes";
import { createCtx } from "@/lib/context";
import { getTrafficSeries } from "@/lib/endpoints/get-traffic-series";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { migrateAsBefore, onlineIndexesBefore0048, useUpgradeDatabase } from "@/test/migrations-before";
import { migrateDatabase } from "./migrate";

const { older, create } = useUpgradeDatabase("0047_charts");

const ORG = "org_0047";
const ENDPOINT = "ep_0047000000000000000000000";
const DESTINATION = "dst_0047000000000000000000000";

describe("migration 0047 (charts) on a database before it", () => {
  it("seeds the hours from the minutes kept, counts nothing twice, and records latency from then on", { timeout: 120_000 }, async () => {
    const url = await create();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrateAsBefore(sql, url, older, onlineIndexesBefore0048(ONLINE_INDEXES));
      await sql`insert into organizations (id, name) values (${ORG}, 'Upgraded')`;
      await sql`insert into endpoints (id, organization_id, name, provider) values (${ENDPOINT}, ${ORG}, 'Orders', 'none')`;
      await sql`insert into destinations (id, organization_id, endpoint_id, name, url, is_default) values (${DESTINATION}, ${ORG}, ${ENDPOINT}, 'Default', 'https://example.com/', true)`;
      const row = (id: string, minutesAgo: number) => sql`
        insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since, updated_at)
        values (${id}, ${ORG}, ${ENDPOINT}, ${DESTINATION}, ${id}, 'pending', 2, now() - ${minutesAgo} * interval '1 minute', now() - ${minutesAgo} * interval '1 minute', now())`;
      for (const [id, minutesAgo] of [["dlv_0047a", 30], ["dlv_0047b", 3 * 60], ["dlv_0047c", 20 * 60], ["dlv_0047d", 10]] as const) await row(id, minutesAgo);
      await sql`update deliveries set status = 'delivered', delivered_at = now() where id = 'dlv_0047a'`;
      await sql`update deliveries set status = 'dead', dead_reason = 'exhausted' where id = 'dlv_0047b'`;
      // The release before's roll-up knows no hours: this one's writes them into a table of this session only.
      await sql`create temporary table delivery_counts_by_hour (endpoint_id text, destination_id text, event text, hour timestamptz, count bigint,
        primary key (destination_id, event, hour))`;
      await rollUpDeliveryCounters({ sql });
      await sql`drop table pg_temp.delivery_counts_by_hour`;
      await sql`update deliveries set status = 'delivered', delivered_at = now() where id = 'dlv_0047c'`; // not folded at the upgrade

      await migrateDatabase(url);

      const ctx = createCtx(ORG, { type: "system" });
      const totals = async (range: "24h" | "7d" | "30d") => (await getTrafficSeries({ ctx, input: { range } })).totals;
      for (const range of ["24h", "7d", "30d"] as const) expect(await totals(range), range).toMatchObject({ received: 4, delivered: 2, failed: 1 });
      await rollUpDeliveryCounters({ sql });
      // Those delivered before the upgrade were counted without a wait: they read as 0 ms in their hours.
      for (const range of ["24h", "7d", "30d"] as const) expect(await totals(range), range).toMatchObject({ received: 4, delivered: 2, failed: 1, averageLatencyMs: 0 });

      await sql`update deliveries set status = 'delivered', delivered_at = now() where id = 'dlv_0047d'`;
      await rollUpDeliveryCounters({ sql });
      const week = await totals("7d");
      expect(week).toMatchObject({ received: 4, delivered: 3, failed: 1 });
      // One delivered after the upgrade, with its 10 minutes' wait, among three.
      const [latency] = await sql<{ count: string }[]>`select sum(count)::text as count from delivery_counts_by_hour where event = 'latency_ms'`;
      expect(Number(latency!.count)).toBeGreaterThanOrEqual(600_000);
      expect(week.averageLatencyMs).toBe(Math.round(Number(latency!.count) / 3));
    } finally {
      await sql.end();
    }
  });
});
