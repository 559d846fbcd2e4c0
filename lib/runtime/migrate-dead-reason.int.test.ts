// Migration 0046 (#47) on a database before it: deliveries buried before the upgrade (known then only by BURY's
// last error) are marked buried when the overview's window still shows them, and counted apart from what failed,
// before and after the next roll-up; a replay of one afterwards takes it off, and a bury after the upgrade is
// counted as it happens. Older buried rows keep no mark: the presenter reads their last error.
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { ONLINE_INDEXES } from "@/db/online-indexes";
import { createCtx } from "@/lib/context";
import { buryDelivery } from "@/lib/delivery/bury-delivery";
import { replayDelivery } from "@/lib/delivery/replay-delivery";
import { getOverview } from "@/lib/endpoints/get-overview";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { migrateAsBefore, onlineIndexesBefore0048, useUpgradeDatabase } from "@/test/migrations-before";
import { migrateDatabase } from "./migrate";

const { older, create } = useUpgradeDatabase("0046_dead_reason");

const ORG = "org_0046";
const ENDPOINT = "ep_0046000000000000000000000";
const DESTINATION = "dst_0046000000000000000000000";

describe("migration 0046 (why a delivery is dead) on a database before it", () => {
  it("marks and counts apart the day's buried deliveries, and the overview tells them from the failed ones", { timeout: 120_000 }, async () => {
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
      for (const [id, minutesAgo] of [["dlv_0046delivered", 30], ["dlv_0046failed", 40], ["dlv_0046buried1", 50], ["dlv_0046buried2", 60], ["dlv_0046old", 3 * 24 * 60]] as const) await row(id, minutesAgo);
      // As the release before left them: delivered, given up, buried by BURY's statement of then.
      await sql`update deliveries set status = 'delivered', delivered_at = now() where id = 'dlv_0046delivered'`;
      await sql`update deliveries set status = 'dead', last_error = 'gave up after 8 attempts (maxAttempts 8); last: HTTP 500' where id = 'dlv_0046failed'`;
      await sql`update deliveries set status = 'dead', last_error = 'buried on request' where id in ('dlv_0046buried1', 'dlv_0046old')`;
      // Some of it folded before the upgrade, some not. This release's roll-up also writes the hours 0047 adds: before
      // it, into a table of this session only, dropped before the upgrade.
      await sql`create temporary table delivery_counts_by_hour (endpoint_id text, destination_id text, event text, hour timestamptz, count bigint,
        primary key (destination_id, event, hour))`;
      await rollUpDeliveryCounters({ sql });
      await sql`drop table pg_temp.delivery_counts_by_hour`;
      await sql`update deliveries set status = 'dead', last_error = 'buried on request; last error: HTTP 503' where id = 'dlv_0046buried2'`;

      await migrateDatabase(url);

      const marks = await sql<{ id: string; dead_reason: string | null }[]>`select id, dead_reason from deliveries where status = 'dead' order by id`;
      expect(marks).toEqual([
        { id: "dlv_0046buried1", dead_reason: "buried" },
        { id: "dlv_0046buried2", dead_reason: "buried" },
        { id: "dlv_0046failed", dead_reason: null },
        { id: "dlv_0046old", dead_reason: null }, // outside the overview's window: read from its last error
      ]);
      const ctx = createCtx(ORG, { type: "system" });
      const lastDay = async () => (await getOverview({ ctx })).endpoints[0]!.last24h;
      expect(await lastDay()).toMatchObject({ received: 4, delivered: 1, dead: 1, buried: 2, successRate: 0.5 });
      await rollUpDeliveryCounters({ sql });
      expect(await lastDay()).toMatchObject({ received: 4, delivered: 1, dead: 1, buried: 2, successRate: 0.5 });

      await replayDelivery({ ctx, input: { id: "dlv_0046buried1" } });
      expect(await lastDay()).toMatchObject({ delivered: 1, dead: 1, buried: 1, waiting: 1 });
      await buryDelivery({ ctx, input: { id: "dlv_0046buried1" } });
      await rollUpDeliveryCounters({ sql });
      expect(await lastDay()).toMatchObject({ delivered: 1, dead: 1, buried: 2, waiting: 0, successRate: 0.5 });
    } finally {
      await sql.end();
    }
  });
});
