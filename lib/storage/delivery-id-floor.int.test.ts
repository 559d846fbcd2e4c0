// The delivery id floor: one organization keeping many weeks of deliveries costs its own queries those weeks,
// not another organization's. Each floor sits at or below every delivery of its organization (wherever it is:
// a week, the legacy partition, the default one), so its queries return the same rows, and the dashboard's and
// the API's queries of an organization with recent deliveries only read none of the weeks only another holds.
import { describe, expect, it } from "vitest";
import { getSql, type Db } from "@/db";
import { checkAlerts } from "@/lib/alerts/check-alerts";
import { withTransaction, type Ctx } from "@/lib/context";
import { requeueOrphans } from "@/lib/delivery/engine/rescue-deliveries";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { countSelection, bulkSelection } from "@/lib/delivery/bulk-selection";
import { getEndpointStats } from "@/lib/endpoints/get-endpoint-stats";
import { getOverview } from "@/lib/endpoints/get-overview";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { timeOrderedIdFloor } from "@/lib/ids";
import { migrateDatabase } from "@/lib/runtime/migrate";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { useTestDatabase } from "@/test/db";
import { idInWeek, inWeekAt, monday } from "@/test/partition-weeks";
import { deliveryIdFloor, refreshDeliveryIdFloors } from "./delivery-id-floor";
import { makeDeliveryPartitions } from "./delivery-partitions";

const database = useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
// A search walks its newest delivery only, then asks the indexes (lib/search/search-deliveries.ts): both routes run.
process.env.INBOX_SEARCH_WINDOW = "2";

const DAY_MS = 86_400_000;
/** Where week `week`'s partition begins: its Monday, 00:00 UTC. */
const weekStart = (week: number) => timeOrderedIdFloor("dlv", inWeekAt(week).getTime() - DAY_MS / 2);

async function organization(name: string) {
  const org = await createOrganizationFixture(name);
  const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
  return { ...org, endpointId: endpoint.id };
}
type Org = Awaited<ReturnType<typeof organization>>;

/** Settled deliveries with the word "needle" in their bodies, as ingest and a finish leave them. */
async function store(org: Org, ids: string[], status: "delivered" | "pending" = "delivered") {
  for (const id of ids) {
    await getSql()`
      with d as (insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, event_type, status, size_bytes)
        values (${id}, ${org.organizationId}, ${org.endpointId}, ${defaultDestinationId(org.endpointId)}, ${"evt_" + id}, 'invoice.paid', ${status}, 20) returning id, organization_id)
      insert into delivery_payloads (delivery_id, organization_id, headers, body, searchable)
      select id, organization_id, '{}', convert_to('{"note":"a needle"}', 'UTF8'), true from d`;
  }
}

/** Index and sequential scans of the partitions of `weeks`, made by `fn` in one transaction. */
async function scansOfWeeks(ctx: Ctx, weeks: number[], fn: (ctx: Ctx) => Promise<unknown>): Promise<number> {
  const names = weeks.flatMap((week) => ["deliveries", "delivery_payloads"].map((table) => `${table}_w${monday(week)}`));
  return withTransaction(ctx, async (tx) => {
    const scans = async () =>
      Number((await tx.db.execute<{ n: string }>(`
        select coalesce(sum(pg_stat_get_xact_numscans(c.oid)), 0)
          + coalesce((select sum(pg_stat_get_xact_numscans(i.indexrelid)) from pg_index i join pg_class t on t.oid = i.indrelid
                      where t.relname = any('{${names.join(",")}}')), 0) as n
        from pg_class c where c.relname = any('{${names.join(",")}}')`))[0]!.n);
    const before = await scans();
    await fn(tx);
    return (await scans()) - before;
  });
}

/** Everything the dashboard shows an organization, and what a bulk action would select. */
async function dashboard(org: Org, ctx: Ctx) {
  const list = await listDeliveries({ ctx, input: { limit: 100 } });
  const search = await listDeliveries({ ctx, input: { q: "needle", limit: 100 } });
  const stats = await getEndpointStats({ ctx, input: { id: org.endpointId } });
  const overview = await getOverview({ ctx });
  const selected = await countSelection(ctx, (await bulkSelection(ctx, {}, [])).where);
  return { listed: list.data.map((d) => d.id).sort(), found: search.data.length, stats, overview, selected };
}

describe("delivery id floors", () => {
  it("sit at or below each organization's every delivery, and spare the others the weeks one organization keeps", async () => {
    const sql = getSql();
    await makeDeliveryPartitions(sql, 12); // weeks 0–12; week 13's ids go to the default partition
    const keeper = await organization("Keeps a long history");
    const recent = await organization("Keeps a few days");
    const none = await organization("Holds nothing");
    const straggler = await organization("Holds a delivery in the default partition");
    const legacy = await organization("Holds a delivery from before the weeks");
    const kept = [2, 3, 4, 5, 6, 7, 8, 9, 10].map((week) => idInWeek(week, 1));
    await store(keeper, kept);
    const recentIds = [idInWeek(10, 2), idInWeek(11, 2), idInWeek(11, 3)];
    await store(recent, recentIds);
    await store(recent, [idInWeek(12, 2)], "pending");
    await store(straggler, [idInWeek(13, 1)]);
    const legacyId = `dlv_0${"1".repeat(24)}`; // an id of the random form made before time-ordered ones: the legacy partition
    await store(legacy, [legacyId]);
    const [where] = await sql<{ relname: string }[]>`select tableoid::regclass::text as relname from deliveries where id = ${idInWeek(13, 1)}`;
    expect(where!.relname).toBe("deliveries_default");

    // Until the first refresh no partition is left out.
    expect(await deliveryIdFloor(recent.ctx.db, recent.organizationId)).toBe("");
    const now = inWeekAt(14, 2);
    expect(await refreshDeliveryIdFloors({ now, batchSize: 2 })).toBe(4); // all but the legacy one's, which stays ''; two at a time

    const floorOf = (org: Org) => deliveryIdFloor(org.ctx.db, org.organizationId);
    expect(await floorOf(keeper)).toBe(weekStart(2));
    expect(await floorOf(recent)).toBe(weekStart(10));
    expect(await floorOf(straggler)).toBe(idInWeek(13, 1));
    expect(await floorOf(legacy)).toBe("");
    // Nothing held: a day before `now`, below any id made since.
    expect(await floorOf(none)).toBe(timeOrderedIdFloor("dlv", now.getTime() - DAY_MS));
    // A second refresh changes nothing.
    expect(await refreshDeliveryIdFloors({ now })).toBe(0);

    // Each organization still sees all of its deliveries.
    for (const [org, ids] of [[keeper, kept], [recent, [...recentIds, idInWeek(12, 2)]], [straggler, [idInWeek(13, 1)]], [legacy, [legacyId]]] as const) {
      const seen = await dashboard(org, org.ctx);
      expect(seen.listed).toEqual([...ids].sort());
      expect(seen.found).toBe(ids.length);
      expect(seen.selected).toBe(ids.length);
    }

    // The weeks only the keeper holds: its queries read them, the recent organization's do not; nor does the
    // minute's alert sweep (across organizations) for the recent one's endpoint, whose pending delivery is over
    // its threshold (the keeper's endpoint has no alert set: the sweep does not look at it).
    await sql`update endpoints set alert_pending_age_seconds = 60 where id = ${recent.endpointId}`;
    await sql`update deliveries set pending_since = now() - interval '1 hour' where id = ${idInWeek(12, 2)}`;
    const sweep = async (ctx: Ctx) => expect(await checkAlerts({ input: { now: new Date() }, db: ctx.db as unknown as Db })).toEqual({ evaluated: 1, failed: 0 });
    const keeperOnly = [2, 3, 4, 5, 6, 7, 8, 9];
    expect(await scansOfWeeks(keeper.ctx, keeperOnly, (ctx) => dashboard(keeper, ctx))).toBeGreaterThan(0);
    expect(await scansOfWeeks(recent.ctx, keeperOnly, (ctx) => dashboard(recent, ctx))).toBe(0);
    expect(await scansOfWeeks(recent.ctx, keeperOnly, sweep)).toBe(0);
    // The rescue's walk of open deliveries (every minute, every endpoint not paused): the others paused here
    // (the legacy organization's floor is '': its walk reads every week), so only the recent one's is walked.
    await sql`update destinations set paused = true where endpoint_id <> ${recent.endpointId}`;
    const rescueWalk = () => sql.begin(async (tx) => {
      const names = keeperOnly.map((week) => `deliveries_w${monday(week)}`);
      const scans = async () => Number((await tx<{ n: string }[]>`
        select coalesce(sum(pg_stat_get_xact_numscans(i.indexrelid)), 0) as n
        from pg_index i join pg_class t on t.oid = i.indrelid where t.relname = any(${names})`)[0]!.n);
      const before = await scans();
      await requeueOrphans(tx, 100);
      return (await scans()) - before;
    });
    expect(await rescueWalk()).toBe(0);
    // Without its floor, the same calls read them (what the floor spares).
    await sql`update organizations set delivery_id_floor = '' where id = ${recent.organizationId}`;
    expect(await scansOfWeeks(recent.ctx, keeperOnly, (ctx) => dashboard(recent, ctx))).toBeGreaterThan(0);
    expect(await scansOfWeeks(recent.ctx, keeperOnly, sweep)).toBeGreaterThan(0);
    expect(await rescueWalk()).toBeGreaterThan(0);

    // Once the keeper's oldest weeks are gone, its floor rises to the oldest it still holds.
    await sql`delete from deliveries where id = any(${kept.slice(0, 4)})`;
    await refreshDeliveryIdFloors({ now });
    expect(await floorOf(keeper)).toBe(weekStart(6));
    expect(await floorOf(recent)).toBe(weekStart(10));
  });

  it("are refreshed by every migrate, so an upgraded database's organizations plan their own weeks from the start", async () => {
    const org = await organization("Upgraded");
    expect(await deliveryIdFloor(org.ctx.db, org.organizationId)).toBe("");
    const before = Date.now();
    await migrateDatabase(database.url());
    // Nothing held: the id of a day before the migrate (database clock).
    const floor = await deliveryIdFloor(org.ctx.db, org.organizationId);
    expect(floor >= timeOrderedIdFloor("dlv", before - DAY_MS - 60_000) && floor <= timeOrderedIdFloor("dlv", Date.now() - DAY_MS + 60_000)).toBe(true);
  });
});
