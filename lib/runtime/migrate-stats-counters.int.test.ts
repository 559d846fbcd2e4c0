// Migrations 0022 and 0023 on a database at 0021 whose retention already deleted deliveries and whose replays
// took some out of delivered and dead (with no record of either): the counters they seed make each endpoint's
// stats what its deliveries say (how many it holds in each state, and its last hour's traffic), and they stay so
// afterwards.
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { createCtx } from "@/lib/context";
import { getEndpointStats } from "@/lib/endpoints/get-endpoint-stats";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { migrateAsBefore, useUpgradeDatabase } from "@/test/migrations-before";
import { migrateDatabase } from "./migrate";

const { older, create } = useUpgradeDatabase("0022_stats_counters");

describe("migrations 0022 and 0023 (stats from counters) on a database at 0021", () => {
  it("seeds what retention and replays changed before it, so every endpoint's stats match its deliveries", { timeout: 60_000 }, async () => {
    const url = await create(); // DATABASE_URL: getEndpointStats uses this database
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrateAsBefore(sql, url, older);
      await sql`insert into organizations (id, name) values ('org_u', 'Upgraded')`;
      await sql`insert into endpoints (id, organization_id, name, provider, destination_url)
        values ('ep_u_a', 'org_u', 'A', 'none', 'https://example.com/a'), ('ep_u_b', 'org_u', 'B', 'none', 'https://example.com/b'),
               ('ep_u_c', 'org_u', 'C', 'none', 'https://example.com/c')`;
      let batch = 0;
      const store = (endpoint: string, status: string, count: number) => sql`
        insert into deliveries (id, organization_id, endpoint_id, external_id, status, size_bytes)
        select 'dlv_' || ${endpoint} || '_' || ${++batch} || '_' || g, 'org_u', ${endpoint}, ${batch} || '_' || g, ${status}, 1
        from generate_series(1, ${count}) g`;
      await store("ep_u_a", "delivered", 40);
      await store("ep_u_a", "dead", 5);
      await store("ep_u_a", "pending", 3);
      await store("ep_u_b", "delivered", 12);
      await store("ep_u_c", "delivered", 9);
      // Some of the 'received' counts folded (as 0021's roll-up did), some not.
      await sql`
        with moved as (delete from delivery_counter_events returning endpoint_id, organization_id, event, attempts, count)
        insert into delivery_counters (endpoint_id, organization_id, event, attempts, count)
        select endpoint_id, organization_id, event, attempts, sum(count) from moved group by 1, 2, 3, 4`;
      await store("ep_u_a", "delivered", 10);
      // Retention before 0022: deleted, and nothing recorded.
      await sql`delete from deliveries where id in (select id from deliveries where endpoint_id = 'ep_u_a' and status = 'delivered' limit 25)`;
      await sql`delete from deliveries where endpoint_id = 'ep_u_c'`;
      // Replays before 0022: out of delivered and dead, and nothing recorded.
      await sql`update deliveries set status = 'pending' where id in (
        (select id from deliveries where endpoint_id = 'ep_u_a' and status = 'delivered' order by id limit 2)
        union all (select id from deliveries where endpoint_id = 'ep_u_a' and status = 'dead' order by id limit 1))`;

      await migrateDatabase(url);

      const ctx = createCtx("org_u", { type: "system" });
      const expectMatches = async ({ lastHour }: { lastHour: boolean }) => {
        for (const endpoint of ["ep_u_a", "ep_u_b", "ep_u_c"]) {
          const rows = await sql<{ status: string; n: number }[]>`select status, count(*)::int as n from deliveries where endpoint_id = ${endpoint} group by 1`;
          const of = (status: string) => rows.find((row) => row.status === status)?.n ?? 0;
          // Received in the last hour, as the deliveries held tell it (migration 0023 counts from them; afterwards a
          // delivery received and then deleted still counts as received).
          const [recent] = await sql<{ received: number }[]>`
            select count(*)::int as received from deliveries where endpoint_id = ${endpoint} and received_at > now() - interval '1 hour'`;
          expect(await getEndpointStats({ ctx, input: { id: endpoint } })).toMatchObject({
            pending: of("pending"), delivering: of("delivering"), delivered: of("delivered"), dead: of("dead"),
            ...(lastHour ? { receivedLastHour: recent!.received } : {}),
          });
        }
      };
      await expectMatches({ lastHour: true });
      expect(await getEndpointStats({ ctx, input: { id: "ep_u_a" } })).toMatchObject({ delivered: 23, dead: 4, pending: 6 });
      await rollUpDeliveryCounters({ sql });
      await expectMatches({ lastHour: true });

      // From now on deletions and replays are counted as they happen.
      await sql`update deliveries set status = 'pending' where id in (select id from deliveries where endpoint_id = 'ep_u_b' and status = 'delivered' order by id limit 1)`;
      await sql`update deliveries set status = 'dead' where id in (select id from deliveries where endpoint_id = 'ep_u_a' and status = 'pending' order by id limit 2)`;
      await sql`delete from deliveries where endpoint_id = 'ep_u_b' and id in (select id from deliveries where endpoint_id = 'ep_u_b' limit 4)`;
      await expectMatches({ lastHour: false });
      await rollUpDeliveryCounters({ sql });
      await expectMatches({ lastHour: false });
      expect((await getEndpointStats({ ctx, input: { id: "ep_u_b" } })).receivedLastHour).toBe(12);
    } finally {
      await sql.end();
    }
  });
});
