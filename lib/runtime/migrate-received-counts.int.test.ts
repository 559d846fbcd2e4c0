// Migration 0032 on a database at 0031 as a running product left it: the roll-up kept per-minute received counts
// for the last 2 hours only, the last minutes' events not folded yet, and one old event a stopped worker never
// folded. The overview now reads its 24 hours from those counts, so the migration counts the older minutes from
// the deliveries: every hour of every endpoint then shows what its deliveries say, before and after a roll-up,
// and the old event is counted once.
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { createCtx } from "@/lib/context";
import { getOverview } from "@/lib/endpoints/get-overview";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { migrateAsBefore, useUpgradeDatabase } from "@/test/migrations-before";
import { migrateDatabase } from "./migrate";

const { older, create } = useUpgradeDatabase("0032_received_counts_by_receipt");

describe("migration 0032 (the overview's receipts from per-minute counts) on a database at 0031", () => {
  it("counts the minutes the roll-up no longer kept from the deliveries, and an old event not folded once", { timeout: 60_000 }, async () => {
    const url = await create(); // DATABASE_URL: getOverview uses this database
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrateAsBefore(sql, url, older);
      await sql`insert into organizations (id, name) values ('org_u', 'Upgraded')`;
      await sql`insert into endpoints (id, organization_id, name, provider, destination_url)
        values ('ep_u_a', 'org_u', 'A', 'none', 'https://example.com/a'), ('ep_u_b', 'org_u', 'B', 'none', 'https://example.com/b')`;
      // A: one delivery every 100 s for the last 26 hours; B: one every 20 s for the last 90 minutes. Stored
      // with the triggers off, and their counter events then made as 0031's trigger and roll-up left them.
      await sql`set session_replication_role = replica`;
      await sql`
        insert into deliveries (id, organization_id, endpoint_id, external_id, status, size_bytes, received_at, pending_since, updated_at, delivered_at)
        select 'dlv_' || substr(md5(e || g), 1, 25), 'org_u', e, e || '_' || g, 'delivered', 1, t, t, t, t
        from (select 'ep_u_a' as e, g, now() - g * interval '100 seconds' as t from generate_series(0, 935) g
              union all select 'ep_u_b', g, now() - g * interval '20 seconds' from generate_series(0, 269) g) r`;
      await sql`set session_replication_role = default`;
      // Folded: the minutes from 2 hours ago to 3 minutes ago. Not folded: the last 3 minutes, at their receipt
      // (0031's trigger wrote now(), ingest's received_at), and a minute of 5 hours ago (a worker stopped then).
      await sql`
        insert into delivery_counts_by_minute (endpoint_id, event, minute, count)
        select endpoint_id, 'received', date_trunc('minute', received_at), count(*) from deliveries
        where received_at > now() - interval '2 hours' and received_at < date_trunc('minute', now()) - interval '2 minutes'
        group by 1, 3`;
      await sql`
        insert into delivery_counter_events (endpoint_id, organization_id, event, attempts, count, at)
        select endpoint_id, organization_id, 'received', 0, count(*), max(received_at) from deliveries
        where received_at >= date_trunc('minute', now()) - interval '2 minutes'
           or date_trunc('minute', received_at) = date_trunc('minute', now() - interval '5 hours')
        group by 1, 2, date_trunc('minute', received_at)`;

      await migrateDatabase(url);

      const ctx = createCtx("org_u", { type: "system" });
      const expectMatches = async (when: string) => {
        const now = new Date();
        const { endpoints } = await getOverview({ ctx, input: { now } });
        for (const endpoint of endpoints) {
          // The deliveries received in each hour of the window, as the overview's minutes divide them.
          const rows = await sql<{ hours_ago: number; n: number }[]>`
            select floor(extract(epoch from date_trunc('minute', ${now.toISOString()}::timestamptz) - date_trunc('minute', received_at)) / 3600)::int as hours_ago, count(*)::int as n
            from deliveries where endpoint_id = ${endpoint.id}
              and date_trunc('minute', received_at) > date_trunc('minute', ${now.toISOString()}::timestamptz) - interval '24 hours'
            group by 1`;
          const expected = Array.from({ length: 24 }, (_, i) => rows.find((row) => row.hours_ago === 23 - i)?.n ?? 0);
          expect(endpoint.hourly.map((hour) => hour.received), `${endpoint.name}, ${when}`).toEqual(expected);
          expect(endpoint.hourly.map((hour) => hour.delivered), `${endpoint.name}, ${when}`).toEqual(expected);
          expect(endpoint.last24h.received).toBe(expected.reduce((sum, n) => sum + n, 0));
        }
        expect(endpoints.find((endpoint) => endpoint.name === "B")!.last24h.received).toBe(270);
      };
      await expectMatches("as migrated");
      await rollUpDeliveryCounters({ sql });
      await expectMatches("after a roll-up");
    } finally {
      await sql.end();
    }
  });
});
