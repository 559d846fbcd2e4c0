// The weekly partitions of deliveries, delivery_payloads and attempts (db/schema/deliveries.ts): made ahead,
// each with every index of its parent, holding the ids of their week; and the statements that delete
// deliveries by batch delete the rows they chose, never another partition's row at the same place.
import { sql as drizzleSql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb, getSql } from "@/db";
import { createCtx } from "@/lib/context";
import { deleteDeliveriesBatch } from "@/lib/delivery/delete-deliveries-batch";
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { newId, timeOrderedIdFloor } from "@/lib/ids";
import { deleteExpiredDeliveries } from "@/lib/retention/delete-expired-deliveries";
import { createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { useTestDatabase } from "@/test/db";
import { idInWeek, monday } from "@/test/partition-weeks";
import { makeDeliveryPartitions } from "./delivery-partitions";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

const TABLES = ["deliveries", "delivery_payloads", "attempts"] as const;

const partitions = async (table: string) =>
  (await getSql()<{ name: string }[]>`select c.relname as name from pg_inherits h join pg_class c on c.oid = h.inhrelid
    where h.inhparent = ${table}::regclass order by 1`).map((row) => row.name);

const partitionOf = async (id: string) =>
  (await getSql()`select tableoid::regclass::text as name from deliveries where id = ${id}`)[0]?.name as string | undefined;

describe("delivery partitions", () => {
  it("bound weeks where lib/ids.ts puts their ids, to the millisecond", async () => {
    for (const at of [Date.UTC(2026, 11, 7), Date.UTC(2026, 11, 7) - 1, Date.UTC(2031, 5, 1, 12, 0, 0, 999), 1_700_000_000_123]) {
      // A microsecond past the millisecond: the floor is that millisecond's, as Math.floor takes it.
      const [row] = await getSql()`select inbox_time_ordered_id_floor('dlv', to_timestamp(${(at + 0.001) / 1000})) as floor`;
      expect(row!.floor, new Date(at).toISOString()).toBe(timeOrderedIdFloor("dlv", at));
    }
  });

  it("are made this week and one ahead, each with all of its parent's indexes; more on demand, none twice", async () => {
    const weeks = [0, 1].map((w) => `_w${monday(w)}`);
    for (const table of TABLES) {
      expect(await partitions(table), table).toEqual([`${table}_default`, `${table}_legacy`, ...weeks.map((w) => table + w)]);
    }
    expect(await makeDeliveryPartitions(getSql(), 6)).toBe(5);
    expect(await makeDeliveryPartitions(getSql(), 6)).toBe(0);
    for (const table of TABLES) {
      const parentIndexes = await getSql()<{ name: string }[]>`
        select c.relname as name from pg_index i join pg_class c on c.oid = i.indexrelid where i.indrelid = ${table}::regclass`;
      for (const partition of await partitions(table)) {
        const copies = await getSql()<{ name: string; parent: string }[]>`
          select c.relname as name, p.relname as parent from pg_index i join pg_class c on c.oid = i.indexrelid
          join pg_inherits h on h.inhrelid = i.indexrelid join pg_class p on p.oid = h.inhparent
          where i.indrelid = ${partition}::regclass order by 2`;
        expect(copies.map((row) => row.parent), partition).toEqual(parentIndexes.map((row) => row.name).sort());
        // Named after the partition then the parent's index, as the legacy ones are (the keys' too).
        for (const copy of copies) expect(copy.name, partition).toBe(partition + copy.parent.slice(table.length));
      }
    }
  });

  it("keep the word index's columns without statistics, in every partition and a week made later: ANALYZE never computes a body's words", async () => {
    const targets = async () => getSql()<{ index: string; column: number; target: number }[]>`
      select c.relname as index, a.attnum as column, a.attstattarget as target
      from pg_class c join pg_attribute a on a.attrelid = c.oid
      where c.relname like 'delivery_payloads%body_by_bucket_words_idx' and a.attnum > 0 order by 1, 2`;
    await makeDeliveryPartitions(getSql(), 8);
    const all = await targets();
    // The parent's, the default's, the legacy's and one per week made (the first two by the migrate, the rest just now).
    expect(new Set(all.map((row) => row.index)).size).toBe(1 + (await partitions("delivery_payloads")).length);
    expect(all.filter((row) => row.target !== 0)).toEqual([]);

    // Bodies in a week made just now, then ANALYZE: the table's columns get statistics, the index's expressions none.
    const { organizationId, ctx } = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(ctx, "http://127.0.0.1:9/hook");
    const week = `delivery_payloads_w${monday(5)}`;
    await getSql()`
      with d as (
        insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes)
        select ${idInWeek(5)} || n, ${organizationId}, ${endpoint.id}, ${defaultDestinationId(endpoint.id)}, 'evt_' || n, 'delivered', 40
        from generate_series(1, 200) n returning id, organization_id)
      insert into delivery_payloads (delivery_id, organization_id, headers, body, searchable)
      select id, organization_id, '{"content-type":"application/json"}', convert_to('{"customer":"cus_' || md5(id) || '"}', 'UTF8'), true from d`;
    expect((await getSql()`select count(*)::int as n from ${getSql()(week)}`)[0]!.n).toBe(200);
    await getSql()`analyze ${getSql()(week)}`;
    const statistics = await getSql()<{ relation: string }[]>`
      select c.relname as relation from pg_statistic s join pg_class c on c.oid = s.starelid
      where c.relname in (${week}, ${`${week}_body_by_bucket_words_idx`}) group by 1 order by 1`;
    expect(statistics.map((row) => row.relation)).toEqual([week]);
  });

  it("hold each delivery in its week's partition, its payload and attempts beside it; any other id in the default one", async () => {
    const { ctx } = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(ctx, "http://127.0.0.1:9/hook");
    const sql = getSql();
    const insert = (id: string) => sql`
      with d as (insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, size_bytes)
        values (${id}, ${ctx.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), ${id}, 1) returning id, organization_id)
      , p as (insert into delivery_payloads (delivery_id, organization_id, headers, body) select id, organization_id, '{}', '\\x00' from d)
      insert into attempts (organization_id, delivery_id, number, trigger, started_at) select organization_id, id, 1, 'auto', now() from d`;
    const now = newId("dlv");
    const inTwoWeeks = idInWeek(2);
    const handMade = "dlv_zz_by_hand";
    for (const id of [now, inTwoWeeks, handMade]) await insert(id);
    expect(await partitionOf(now)).toBe(`deliveries_w${monday(0)}`);
    expect(await partitionOf(inTwoWeeks)).toBe(`deliveries_w${monday(2)}`);
    expect(await partitionOf(handMade)).toBe("deliveries_default");
    for (const id of [now, inTwoWeeks, handMade]) {
      const payload = await sql`select tableoid::regclass::text as name from delivery_payloads where delivery_id = ${id}`;
      const attempt = await sql`select tableoid::regclass::text as name from attempts where delivery_id = ${id}`;
      expect(payload[0]!.name).toBe((await partitionOf(id))!.replace("deliveries", "delivery_payloads"));
      expect(attempt[0]!.name).toBe((await partitionOf(id))!.replace("deliveries", "attempts"));
    }
  });

  it("skip a week whose ids already went to the default partition, and make the others", async () => {
    const { ctx } = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(ctx, "http://127.0.0.1:9/hook");
    // A delivery of the week in ten weeks, stored while its partitions do not exist yet (the cron stopped).
    const early = idInWeek(10);
    await getSql()`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, size_bytes)
      values (${early}, ${ctx.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), 'evt_early', 1)`;
    expect(await partitionOf(early)).toBe("deliveries_default");
    await makeDeliveryPartitions(getSql(), 11);
    const made = await partitions("deliveries");
    for (const week of [7, 8, 9, 11]) expect(made).toContain(`deliveries_w${monday(week)}`);
    expect(made).not.toContain(`deliveries_w${monday(10)}`);
    expect(await partitionOf(early)).toBe("deliveries_default");
    // The next run tries that week again, and still leaves it.
    expect(await makeDeliveryPartitions(getSql(), 11)).toBe(0);
  });

  it("delete, by batch, the rows chosen and no row of another partition at the same place (ctid)", async () => {
    const a = await createOrganizationFixture();
    const b = await createOrganizationFixture();
    const endpointA = await createEndpointFixture(a.ctx, "http://127.0.0.1:9/a");
    const endpointB = await createEndpointFixture(b.ctx, "http://127.0.0.1:9/b");
    const sql = getSql();
    // A's expired deliveries in the legacy partition, B's kept ones in this week's: each partition's rows
    // begin at the same ctids, (0,1), (0,2), …
    await sql`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, updated_at)
      select 'dlv_0expired' || g, ${a.organizationId}, ${endpointA.id}, 'dst_' || substr(${endpointA.id}, 4), 'evt_' || g, 'delivered', 1, now() - interval '400 days'
      from generate_series(1, 50) g`;
    const kept = Array.from({ length: 50 }, () => newId("dlv"));
    await sql`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes)
      select id, ${b.organizationId}, ${endpointB.id}, 'dst_' || substr(${endpointB.id}, 4), id, 'delivered', 1 from unnest(${kept}::text[]) id`;
    const [shared] = await sql`select count(*)::int as n from deliveries x join deliveries y on x.ctid = y.ctid
      where x.organization_id = ${a.organizationId} and y.organization_id = ${b.organizationId}`;
    expect(shared!.n).toBeGreaterThanOrEqual(30);

    expect(await deleteExpiredDeliveries({ ctx: createCtx(a.organizationId, { type: "system" }), input: { limit: 30 } })).toBe(30);
    expect(await deleteDeliveriesBatch(getDb(), drizzleSql`d.organization_id = ${a.organizationId}`, 10)).toBe(10);
    const left = await sql`select organization_id, count(*)::int as n from deliveries
      where organization_id in (${a.organizationId}, ${b.organizationId}) group by 1`;
    expect(Object.fromEntries(left.map((row) => [row.organization_id, row.n]))).toEqual({ [a.organizationId]: 10, [b.organizationId]: 50 });
  });
});
