// parked_deliveries holds exactly the deliveries whose parked_at is set, whichever statement parks or unparks
// them (the triggers of migration 0028), and the worker's look "is anything parked here?" reads it alone: no
// week's partition of deliveries, however many weeks are kept.
import { beforeAll, describe, expect, it } from "vitest";
import type postgres from "postgres";
import { getSql } from "@/db";
import { withTransaction } from "@/lib/context";
import { newId } from "@/lib/ids";
import { makeDeliveryPartitions } from "@/lib/storage/delivery-partitions";
import { idInWeek, monday } from "@/test/partition-weeks";
import { useTestDatabase } from "@/test/db";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { leavesOf } from "@/test/counting-reads";
import { buryDelivery } from "../bury-delivery";
import { replayDelivery } from "../replay-delivery";
import { resumeEndpointDeliveries } from "../resume-endpoint-deliveries";
import { claimDelivery } from "./claim-delivery";
import { claimStatements } from "./claim-statements";
import { drizzleRunner, rawRunner, wakeNeededMany, wakeParkedDeliveries } from "./endpoint-slots";
import { deliverySettings } from "./settings";

useTestDatabase();

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  org = await createOrganizationFixture();
});

const settings = { ...deliverySettings(), endpointConcurrency: 1 };
const claim = (deliveryId: string, endpointId: string, jobId: string) => claimDelivery({ deliveryId, endpointId, jobId, trigger: "auto", settings });
const stored = async (endpointId: string, n: number) =>
  Promise.all(Array.from({ length: n }, async () => (await createDeliveryFixture({ ctx: org.ctx, endpointId, enqueue: false })).id));

/** The mirror and what deliveries say, of one endpoint, each sorted. */
async function parkedBothWays(endpointId: string) {
  const sql = getSql();
  const mirror = (await sql<{ id: string }[]>`select delivery_id as id from parked_deliveries where endpoint_id = ${endpointId} order by 1`).map((r) => r.id);
  const rows = (await sql<{ id: string }[]>`select id from deliveries where endpoint_id = ${endpointId} and parked_at is not null order by 1`).map((r) => r.id);
  return { mirror, rows };
}

describe("parked deliveries", () => {
  it("are mirrored as they are parked by a pause or a full endpoint, woken, claimed, buried, replayed, stored parked and deleted", async () => {
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const expectMirror = async (parked: string[]) => {
      const { mirror, rows } = await parkedBothWays(endpoint.id);
      expect(rows).toEqual([...parked].sort());
      expect(mirror).toEqual(rows);
    };
    const [a, b, c, d] = await stored(endpoint.id, 4);

    // A full endpoint (cap 1): the first claim takes the slot, the others park.
    const claims = await Promise.all([claim(a!, endpoint.id, "1"), claim(b!, endpoint.id, "2"), claim(c!, endpoint.id, "3")]);
    expect(claims.map((x) => x.verdict)).toEqual(["claimed", "saturated", "saturated"]);
    await expectMirror([b!, c!]);

    // Buried while parked; replayed (pending again, with a job, not parked).
    await buryDelivery({ ctx: org.ctx, input: { id: b! } });
    await expectMirror([c!]);
    await replayDelivery({ ctx: org.ctx, input: { id: b! } });
    await expectMirror([c!]);

    // A paused endpoint's claim parks; a resume wakes both (at the default cap).
    await getSql()`update endpoints set paused = true where id = ${endpoint.id}`;
    expect((await claim(d!, endpoint.id, "4")).verdict).toBe("paused");
    await expectMirror([c!, d!]);
    await getSql()`update endpoints set paused = false where id = ${endpoint.id}`;
    expect(await resumeEndpointDeliveries({ ctx: org.ctx, input: { endpointId: endpoint.id } })).toEqual({ woken: 2 });
    await expectMirror([]);

    // Stored parked in the insert itself (as ingest stores a paused endpoint's), then deleted.
    const f = newId("dlv");
    await getSql()`
      insert into deliveries (id, organization_id, endpoint_id, external_id, status, size_bytes, parked_at)
      values (${f}, ${org.organizationId}, ${endpoint.id}, ${"evt_" + f}, 'pending', 2, now())`;
    await expectMirror([f]);
    await getSql()`delete from deliveries where id = ${f}`;
    await expectMirror([]);
  });

  it("are looked for without reading any week's partition of deliveries", async () => {
    await makeDeliveryPartitions(getSql(), 6);
    const quiet = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const busy = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    const [first, second] = await stored(busy.id, 2);
    expect((await Promise.all([claim(first!, busy.id, "10"), claim(second!, busy.id, "11")])).map((x) => x.verdict)).toEqual(["claimed", "saturated"]);

    // Its slot freed behind the look's back: the look must answer "hand on" from the mirror.
    await getSql()`update endpoint_slots set in_flight = 0 where endpoint_id = ${busy.id}`;
    const { looks, scans } = await withTransaction(org.ctx, async (tx) => {
      const scansOfDeliveries = async () =>
        Number((await tx.db.execute<{ n: string }>(`
          select coalesce(sum(pg_stat_get_xact_numscans(indexrelid)), 0) + coalesce((select sum(pg_stat_get_xact_numscans(relid)) from ${leavesOf("deliveries")} t), 0) as n
          from pg_index where indrelid in ${leavesOf("deliveries")}`))[0]!.n);
      const before = await scansOfDeliveries();
      const looks = await wakeNeededMany(drizzleRunner(tx.db), { endpointIds: [quiet.id, busy.id], caps: settings });
      return { looks, scans: (await scansOfDeliveries()) - before };
    });
    expect([looks.get(quiet.id)!.needed, looks.get(busy.id)!.needed]).toEqual([false, true]);
    expect((await parkedBothWays(busy.id)).mirror).toEqual([second]);
    expect(scans).toBe(0);
  });

  it("are picked, oldest in line first, from the weeks holding them only", async () => {
    const sql = getSql();
    await makeDeliveryPartitions(sql, 6);
    const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
    // Parked in weeks 3 and 5, first in line in week 5 (parked_at is a place in line, not an id order); weeks 1
    // and 4 hold the endpoint's deliveries that are not parked, the other weeks nothing.
    const park = async (id: string, parkedAt: string | null) =>
      sql`insert into deliveries (id, organization_id, endpoint_id, external_id, status, size_bytes, parked_at)
        values (${id}, ${org.organizationId}, ${endpoint.id}, ${"evt_" + id}, 'pending', 2, ${parkedAt}::timestamptz)`;
    await park(idInWeek(1, 1), null);
    await park(idInWeek(4, 1), null);
    await park(idInWeek(3, 1), "2026-01-01T00:00:03Z");
    await park(idInWeek(3, 2), "2026-01-01T00:00:04Z");
    await park(idInWeek(5, 1), "2026-01-01T00:00:01Z");
    await park(idInWeek(5, 2), "2026-01-01T00:00:02Z");
    // Outside weeks 3 to 5 (week 4, between, is read: the picks name the least and greatest id parked).
    const elsewhere = [0, 1, 2, 6].map((week) => `deliveries_w${monday(week)}`).concat(["deliveries_legacy", "deliveries_default"]);
    /** Index and sequential scans of deliveries' partitions outside the parked ones' weeks, in this transaction so far. */
    const scansElsewhere = async (tx: postgres.TransactionSql) =>
      Number((await tx<{ n: string }[]>`
        select coalesce(sum(pg_stat_get_xact_numscans(c.oid)), 0)
          + coalesce((select sum(pg_stat_get_xact_numscans(i.indexrelid)) from pg_index i join pg_class t on t.oid = i.indrelid where t.relname = any(${elsewhere})), 0) as n
        from pg_class c where c.relname = any(${elsewhere})`)[0]!.n);

    // A job that takes the oldest parked delivery itself (a chain names none), in the claim's statements: the first
    // in line, across weeks. (Its other parts, joined to a batch naming no id, still read every week.)
    const claimed = await sql.begin(async (tx) => {
      const [early, claim] = claimStatements(tx as unknown as postgres.ReservedSql, [{ deliveryId: null, endpointId: endpoint.id, jobId: "20", trigger: "auto" }], settings);
      await early;
      return (await claim)[0]?.delivery_id;
    });
    expect(claimed).toBe(idInWeek(5, 1));

    // A wake of as many as the free slots (the cap lifted to 3: the claim above holds one).
    const woken = await sql.begin(async (tx) => {
      const before = await scansElsewhere(tx);
      const ids = await wakeParkedDeliveries(rawRunner(tx), { endpointId: endpoint.id, caps: { ...settings, endpointConcurrency: 3 } });
      return { ids, scans: (await scansElsewhere(tx)) - before };
    });
    expect(woken).toEqual({ ids: [idInWeek(5, 2), idInWeek(3, 1)], scans: 0 });
    expect((await parkedBothWays(endpoint.id)).mirror).toEqual([idInWeek(3, 2)]);
  });
});
