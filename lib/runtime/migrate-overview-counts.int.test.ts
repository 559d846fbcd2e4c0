// Migration 0034 on a database at 0033 as a running product left it: deliveries of the last 26 hours in every
// state, some changed since (replays, buries, retries), and their counter events not folded yet, written by
// 0033's triggers without a receipt minute. The overview now reads its open, retrying and dead deliveries by
// receipt minute from counts, so the migration counts the last 25 hours from the deliveries: every hour of every
// endpoint then shows what its rows say, as migrated, after a roll-up, and after further changes of state.
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { createCtx } from "@/lib/context";
import { getOverview } from "@/lib/endpoints/get-overview";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { migrateAsBefore, onlineIndexesBefore0036, useUpgradeDatabase } from "@/test/migrations-before";
import { overviewHoursFromRows } from "@/test/overview-hours";
import { ONLINE_INDEXES } from "@/db/online-indexes";
import { migrateDatabase } from "./migrate";

const { older, create } = useUpgradeDatabase("0034_overview_counts_by_receipt");

describe("migration 0034 (the overview's open, retrying and dead by receipt minute) on a database at 0033", () => {
  it("counts the last 25 hours from the deliveries, and nothing twice", { timeout: 60_000 }, async () => {
    const url = await create(); // DATABASE_URL: getOverview uses this database
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrateAsBefore(sql, url, older, onlineIndexesBefore0036(ONLINE_INDEXES));
      await sql`insert into organizations (id, name) values ('org_u', 'Upgraded')`;
      await sql`insert into endpoints (id, organization_id, name, provider, destination_url)
        values ('ep_u_a', 'org_u', 'A', 'none', 'https://example.com/a'), ('ep_u_b', 'org_u', 'B', 'none', 'https://example.com/b')`;
      // A: one delivery every 100 s for the last 26 hours; B: one every 20 s for the last 90 minutes; in turn
      // delivered, dead, pending, retrying (pending after 2 failed attempts) and delivering. 0033's triggers count them.
      await sql`
        insert into deliveries (id, organization_id, endpoint_id, external_id, status, size_bytes, received_at, pending_since, updated_at, attempt_count, auto_attempt_count)
        select 'dlv_' || substr(md5(e || g), 1, 25), 'org_u', e, e || '_' || g,
          (array['delivered', 'dead', 'pending', 'pending', 'delivering'])[g % 5 + 1], 1, t, t, t,
          case when g % 5 in (0, 1, 3) then 2 else 0 end, case when g % 5 in (0, 1, 3) then 2 else 0 end
        from (select 'ep_u_a' as e, g, now() - g * interval '100 seconds' as t from generate_series(0, 935) g
              union all select 'ep_u_b', g, now() - g * interval '20 seconds' from generate_series(0, 269) g) r`;
      // Changed since, as 0033's triggers record it: replays of delivered and dead ones, buries of retrying ones,
      // a failed attempt of delivering ones. Their events (no receipt minute) stay for the first roll-up.
      await sql`update deliveries set status = 'pending', auto_attempt_count = 0 where status in ('delivered', 'dead') and abs(hashtext(id)) % 3 = 0`;
      await sql`update deliveries set status = 'dead' where status = 'pending' and auto_attempt_count > 0 and abs(hashtext(id)) % 3 = 1`;
      await sql`update deliveries set status = 'pending', auto_attempt_count = 1 where status = 'delivering' and abs(hashtext(id)) % 2 = 0`;
      const [{ unfolded }] = await sql<{ unfolded: number }[]>`select count(*)::int as unfolded from delivery_counter_events where event <> 'received'`;
      expect(unfolded).toBeGreaterThan(100);

      await migrateDatabase(url);

      const ctx = createCtx("org_u", { type: "system" });
      const expectMatches = async (when: string) => {
        const now = new Date();
        const { endpoints } = await getOverview({ ctx, input: { now } });
        expect(endpoints).toHaveLength(2);
        for (const endpoint of endpoints) {
          const hours = await overviewHoursFromRows(sql, endpoint.id, now);
          expect(endpoint.hourly, `${endpoint.name}, ${when}`).toEqual(hours);
          expect(hours.some((hour) => hour.retrying > 0 && hour.dead > 0 && hour.delivered > 0), `${endpoint.name} holds every state`).toBe(true);
        }
      };
      await expectMatches("as migrated");
      await rollUpDeliveryCounters({ sql });
      await expectMatches("after a roll-up");
      // Changes of state after the upgrade: claims, failures, deliveries, replays.
      await sql`update deliveries set status = 'delivering', attempt_count = attempt_count + 1, auto_attempt_count = auto_attempt_count + 1 where status = 'pending' and abs(hashtext(id)) % 4 = 0`;
      await sql`update deliveries set status = 'pending' where status = 'delivering' and abs(hashtext(id)) % 2 = 1`;
      await sql`update deliveries set status = 'delivered' where status = 'delivering'`;
      await sql`update deliveries set status = 'pending', auto_attempt_count = 0 where status = 'dead' and abs(hashtext(id)) % 2 = 0`;
      await expectMatches("changed since");
      await rollUpDeliveryCounters({ sql });
      await expectMatches("changed since, after a roll-up");
    } finally {
      await sql.end();
    }
  });
});
