// Migration 0041 (#43) on a database at 0040: an endpoint with three destinations whose deliveries, in every
// state and changed since they were stored, were counted per endpoint, some folded into the counters and some
// not. After it, each destination's stats are its own rows, the endpoint's are unchanged, before and after the
// next roll-up, and its minutes (the overview's, the last hour's) are unchanged.
import postgres from "postgres";
import { describe, expect, it } from "vitest";
import { ONLINE_INDEXES } from "@/db/online-indexes";
import { createCtx } from "@/lib/context";
import { getDestinationStats } from "@/lib/destinations/get-destination-stats";
import { getEndpointStats } from "@/lib/endpoints/get-endpoint-stats";
import { rollUpDeliveryCounters } from "@/lib/metrics/roll-up-delivery-counters";
import { migrateAsBefore, onlineIndexesBefore0041, useUpgradeDatabase } from "@/test/migrations-before";
import { migrateDatabase } from "./migrate";

const { older, create } = useUpgradeDatabase("0041_counters_by_destination");

const ORG = "org_0041";
const ENDPOINT = "ep_0041000000000000000000000";
const DEFAULT = "dst_0041000000000000000000000";
const OTHERS = ["dst_0041billing", "dst_0041analytics"];

/** 0040's roll-up of the counters (per endpoint), for the events stored before the upgrade. */
const foldAsBefore = (sql: postgres.Sql) => sql`
  with moved as (delete from delivery_counter_events returning endpoint_id, organization_id, event, attempts, count)
  insert into delivery_counters (endpoint_id, organization_id, event, attempts, count)
  select endpoint_id, organization_id, event, attempts, sum(count) from moved where event <> 'retrying' group by 1, 2, 3, 4
  on conflict (endpoint_id, event, attempts) do update set count = delivery_counters.count + excluded.count`;

async function rowsOf(sql: postgres.Sql, destinationId?: string) {
  const rows = await sql<{ status: string; n: number }[]>`
    select status, count(*)::int as n from deliveries
    where endpoint_id = ${ENDPOINT} and status <> 'filtered' and (${destinationId ?? null}::text is null or destination_id = ${destinationId ?? null}) group by 1`;
  const of = (status: string) => rows.find((row) => row.status === status)?.n ?? 0;
  return { pending: of("pending"), delivering: of("delivering"), delivered: of("delivered"), dead: of("dead") };
}

describe("migration 0041 (counters per destination) on a database at 0040", () => {
  it("gives each destination what its rows hold and leaves the endpoint's figures as they were", { timeout: 120_000 }, async () => {
    const url = await create();
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await migrateAsBefore(sql, url, older, onlineIndexesBefore0041(ONLINE_INDEXES));
      await sql`insert into organizations (id, name) values (${ORG}, 'Upgraded')`;
      await sql`insert into endpoints (id, organization_id, name, provider) values (${ENDPOINT}, ${ORG}, 'Orders', 'none')`;
      await sql`insert into destinations (id, organization_id, endpoint_id, name, url, is_default)
        select id, ${ORG}, ${ENDPOINT}, id, 'https://example.com/' || id, id = ${DEFAULT} from unnest(${[DEFAULT, ...OTHERS]}::text[]) id`;
      // Each destination's mix; a filtered request too.
      await sql`
        insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since, updated_at, attempt_count)
        select 'dlv_0041' || d || '_' || g, ${ORG}, ${ENDPOINT}, d, d || g,
          (array['delivered', 'dead', 'pending', 'delivering', 'delivered'])[(g + length(d)) % 5 + 1], 10,
          now() - g * interval '1 minute', now() - g * interval '1 minute', now(), 1 + g % 3
        from unnest(${[DEFAULT, ...OTHERS]}::text[]) d cross join generate_series(1, 40) g
        where g <= case d when ${DEFAULT} then 40 when ${OTHERS[0]!} then 25 else 9 end`;
      await sql`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since, updated_at)
        values ('dlv_0041filtered', ${ORG}, ${ENDPOINT}, ${DEFAULT}, 'filtered', 'filtered', 10, now(), now(), now())`;
      await foldAsBefore(sql);
      // Changed since, some of it left for the first roll-up after the upgrade: replays, buries, deletions.
      await sql`update deliveries set status = 'pending', pending_since = now() where status in ('delivered', 'dead') and abs(hashtext(id)) % 4 = 0`;
      await sql`update deliveries set status = 'dead' where status = 'pending' and abs(hashtext(id)) % 4 = 1`;
      await sql`delete from deliveries where status = 'delivered' and abs(hashtext(id)) % 4 = 2`;
      const [{ unfolded }] = await sql<{ unfolded: number }[]>`select count(*)::int as unfolded from delivery_counter_events`;
      expect(unfolded).toBeGreaterThan(5);
      const ctx = createCtx(ORG, { type: "system" });
      const endpointBefore = await getEndpointStatsAsRows(sql);

      await migrateDatabase(url);

      const expectMatches = async (when: string) => {
        const endpoint = await getEndpointStats({ ctx, input: { id: ENDPOINT } });
        expect(pick(endpoint), `endpoint, ${when}`).toEqual(await rowsOf(sql));
        for (const destinationId of [DEFAULT, ...OTHERS]) {
          const stats = await getDestinationStats({ ctx, input: { endpointId: ENDPOINT, id: destinationId } });
          expect(pick(stats), `${destinationId}, ${when}`).toEqual(await rowsOf(sql, destinationId));
        }
        expect(endpoint.receivedLastHour, when).toBe(endpointBefore.receivedLastHour);
      };
      await expectMatches("as migrated");
      await rollUpDeliveryCounters({ sql });
      await expectMatches("after a roll-up");
      // A change after the upgrade is counted to its own destination.
      await sql`update deliveries set status = 'delivered' where destination_id = ${OTHERS[1]!} and status = 'pending'`;
      await expectMatches("changed after the upgrade");
      await rollUpDeliveryCounters({ sql });
      await expectMatches("changed after the upgrade, folded");
    } finally {
      await sql.end();
    }
  });
});

const pick = (stats: { pending: number; delivering: number; delivered: number; dead: number }) =>
  ({ pending: stats.pending, delivering: stats.delivering, delivered: stats.delivered, dead: stats.dead });

/** The endpoint's last-hour receipts at 0040, read as its stats did then (per endpoint). */
async function getEndpointStatsAsRows(sql: postgres.Sql) {
  const [row] = await sql<{ received: number }[]>`
    select coalesce(sum(count), 0)::int as received from (
      select count from delivery_counts_by_minute where endpoint_id = ${ENDPOINT} and event = 'received' and minute > now() - interval '1 hour'
      union all
      select count from delivery_counter_events where endpoint_id = ${ENDPOINT} and event = 'received' and at > now() - interval '1 hour') recent`;
  return { receivedLastHour: row!.received };
}
