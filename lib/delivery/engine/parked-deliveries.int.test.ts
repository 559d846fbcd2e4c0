// parked_deliveries holds exactly the deliveries whose parked_at is set, whichever statement parks or unparks
// them (the triggers of migration 0028), and the worker's look "is anything parked here?" reads it alone: no
// week's partition of deliveries, however many weeks are kept.
import { defaultDestinationId } from "@/lib/destinations/destination-ids";
import { beforeAll, describe, expect, it } from "vitest";
import postgres from "postgres";
import { getSql } from "@/db";
import { withTransaction } from "@/lib/context";
import { newId } from "@/lib/ids";
import { floorOfDestinations } from "@/lib/storage/delivery-id-floor";
import { makeDeliveryPartitions } from "@/lib/storage/delivery-partitions";
import { idInWeek, inWeekAt, monday } from "@/test/partition-weeks";
import { useTestDatabase } from "@/test/db";
import { explainedConnection } from "@/test/explained-connection";
import { createDeliveryFixture, createEndpointFixture } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { leavesOf } from "@/test/counting-reads";
import { buryDelivery } from "../bury-delivery";
import { replayDelivery } from "../replay-delivery";
import { resumeEndpointDeliveries } from "../resume-endpoint-deliveries";
import { claimDelivery, claimIdBounds, claimStatements } from "./claim-delivery";
import { drizzleRunner, rawRunner, wakeNeededMany, wakeParkedDeliveries } from "./destination-slots";
import { finishAttempts } from "./finish-attempt";
import { deliverySettings } from "./settings";

const testDatabase = useTestDatabase();

let org: Awaited<ReturnType<typeof createOrganizationFixture>>;
beforeAll(async () => {
  process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
  org = await createOrganizationFixture();
});

const settings = { ...deliverySettings(), destinationConcurrency: 1 };
const claim = (deliveryId: string, endpointId: string, jobId: string) => claimDelivery({ deliveryId, destinationId: defaultDestinationId(endpointId), jobId, trigger: "auto", settings });
const stored = async (endpointId: string, n: number) =>
  Promise.all(Array.from({ length: n }, async () => (await createDeliveryFixture({ ctx: org.ctx, endpointId, enqueue: false })).id));

interface PlanNode { "Node Type": string; "Relation Name"?: string; Plans?: PlanNode[] }

/** The mirror and what deliveries say, of one endpoint, each sorted. */
async function parkedBothWays(endpointId: string) {
  const sql = getSql();
  const mirror = (await sql<{ id: string }[]>`select delivery_id as id from parked_deliveries where destination_id = 'dst_' || substr(${endpointId}, 4) order by 1`).map((r) => r.id);
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
    await getSql()`update destinations set paused = true where endpoint_id = ${endpoint.id} and is_default`;
    expect((await claim(d!, endpoint.id, "4")).verdict).toBe("paused");
    await expectMirror([c!, d!]);
    await getSql()`update destinations set paused = false where endpoint_id = ${endpoint.id} and is_default`;
    expect(await resumeEndpointDeliveries({ ctx: org.ctx, input: { endpointId: endpoint.id } })).toEqual({ woken: 2 });
    await expectMirror([]);

    // Stored parked in the insert itself (as ingest stores a paused endpoint's), then deleted.
    const f = newId("dlv");
    await getSql()`
      insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, parked_at)
      values (${f}, ${org.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), ${"evt_" + f}, 'pending', 2, now())`;
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
    await getSql()`update destination_slots set in_flight = 0 where destination_id = 'dst_' || substr(${busy.id}, 4)`;
    const { looks, scans } = await withTransaction(org.ctx, async (tx) => {
      const scansOfDeliveries = async () =>
        Number((await tx.db.execute<{ n: string }>(`
          select coalesce(sum(pg_stat_get_xact_numscans(indexrelid)), 0) + coalesce((select sum(pg_stat_get_xact_numscans(relid)) from ${leavesOf("deliveries")} t), 0) as n
          from pg_index where indrelid in ${leavesOf("deliveries")}`))[0]!.n);
      const before = await scansOfDeliveries();
      const looks = await wakeNeededMany(drizzleRunner(tx.db), { destinationIds: [defaultDestinationId(quiet.id), defaultDestinationId(busy.id)], caps: settings });
      return { looks, scans: (await scansOfDeliveries()) - before };
    });
    expect([looks.get(defaultDestinationId(quiet.id))!.needed, looks.get(defaultDestinationId(busy.id))!.needed]).toEqual([false, true]);
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
      sql`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, parked_at)
        values (${id}, ${org.organizationId}, ${endpoint.id}, 'dst_' || substr(${endpoint.id}, 4), ${"evt_" + id}, 'pending', 2, ${parkedAt}::timestamptz)`;
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
      const [early, claim] = claimStatements(tx as unknown as postgres.ReservedSql, [{ deliveryId: null, destinationId: defaultDestinationId(endpoint.id), jobId: "20", trigger: "auto" }], settings, { kind: "from", floor: "" });
      await early;
      return (await claim)[0]?.delivery_id;
    });
    expect(claimed).toBe(idInWeek(5, 1));

    // A wake of as many as the free slots (the cap lifted to 3: the claim above holds one).
    const woken = await sql.begin(async (tx) => {
      const before = await scansElsewhere(tx);
      const ids = await wakeParkedDeliveries(rawRunner(tx), { destinationId: defaultDestinationId(endpoint.id), caps: { ...settings, destinationConcurrency: 3 }, floor: "" });
      return { ids, scans: (await scansElsewhere(tx)) - before };
    });
    expect(woken).toEqual({ ids: [idInWeek(5, 2), idInWeek(3, 1)], scans: 0 });
    expect((await parkedBothWays(endpoint.id)).mirror).toEqual([idInWeek(3, 2)]);
  });

  it("are picked, by a claim naming none, a chain and a wake, from the organization's floor on: the weeks below are neither opened nor in the plan", async () => {
    const sql = getSql();
    await makeDeliveryPartitions(sql, 6);
    // Another organization keeps weeks 1 and 2; this one holds deliveries in weeks 4 and 5 only, its floor where week 4 begins.
    const keeper = await createOrganizationFixture();
    const keeperEndpoint = await createEndpointFixture(keeper.ctx, "http://127.0.0.1:9/hook");
    const recent = await createOrganizationFixture();
    const endpoint = await createEndpointFixture(recent.ctx, "http://127.0.0.1:9/hook");
    const insert = async (o: typeof org, endpointId: string, id: string, status: string, parkedAt: string | null) => {
      await sql`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, parked_at)
        values (${id}, ${o.organizationId}, ${endpointId}, 'dst_' || substr(${endpointId}, 4), ${"evt_" + id}, ${status}, 2, ${parkedAt}::timestamptz)`;
      await sql`insert into delivery_payloads (delivery_id, organization_id, headers, body) values (${id}, ${o.organizationId}, '{}', '\\x7b7d')`;
    };
    await insert(keeper, keeperEndpoint.id, idInWeek(1, 101), "pending", "2026-01-01T00:00:00Z");
    await insert(keeper, keeperEndpoint.id, idInWeek(2, 101), "delivered", null);
    const sending = idInWeek(5, 109);
    await insert(recent, endpoint.id, sending, "pending", null);
    await insert(recent, endpoint.id, idInWeek(4, 101), "pending", "2026-01-01T00:00:01Z");
    await insert(recent, endpoint.id, idInWeek(5, 101), "pending", "2026-01-01T00:00:02Z");
    await insert(recent, endpoint.id, idInWeek(5, 102), "pending", "2026-01-01T00:00:03Z");
    await sql`update organizations set delivery_id_floor = inbox_time_ordered_id_floor('dlv', ${inWeekAt(4, -0.5)}::timestamptz)
      where id = ${recent.organizationId}`;
    const below = [0, 1, 2, 3].map((week) => `_w${monday(week)}`).concat(["_legacy"]);

    // The worker's connection as it runs (generic plans), with each statement's plan as it ran told back.
    const connection = await explainedConnection(testDatabase.url());
    const { sql: explained, plans } = connection;
    try {
      /**
       * The partitions of weeks below the floor that the plans of what `run` did scan (`below`), and that they
       * name at all (`planned`): a generic plan holds, and locks as it starts, every partition it names, and
       * its update lists every one it holds as a target, whatever it then opens.
       */
      const opened = async <T>(run: () => Promise<T>) => {
        plans.length = 0;
        const result = await run();
        const scanned = (node: PlanNode): string[] =>
          [...(node["Node Type"] !== "ModifyTable" && node["Relation Name"] ? [node["Relation Name"]] : []), ...(node.Plans ?? []).flatMap(scanned)];
        const names = plans.flatMap((plan) => scanned((JSON.parse(plan.slice(plan.indexOf("{"))) as { Plan: PlanNode }).Plan));
        const planned = below.filter((week) => plans.some((plan) => plan.includes(`${week}"`)));
        return { result, below: [...new Set(names.filter((name) => below.some((week) => name.endsWith(week))))], planned };
      };
      /** What a transaction has locked of the weeks below the floor: what its plans held, pruned or not. */
      const lockedBelow = async (tx: postgres.TransactionSql) =>
        (await tx<{ relname: string }[]>`select distinct c.relname from pg_locks l join pg_class c on c.oid = l.relation
          where l.pid = pg_backend_pid() and c.relkind = 'r' order by 1`).map((r) => r.relname).filter((name) => below.some((week) => name.endsWith(week)));
      const cap = { ...settings, destinationConcurrency: 2 };
      // The delivery being sent: named, its week's partitions alone.
      const claims = [{ deliveryId: sending, destinationId: defaultDestinationId(endpoint.id), jobId: "31", trigger: "auto" as const }];
      const first = await opened(() => explained.begin(async (tx) => {
        const [early, claim] = claimStatements(tx as unknown as postgres.ReservedSql, claims, cap, await claimIdBounds(explained, claims));
        await early;
        return (await claim)[0]?.delivery_id;
      }));
      expect(first).toEqual({ result: sending, below: [], planned: [] });
      // Its attempt passes the slot on: the chain takes the first in line.
      const chained = await opened(async () => (await finishAttempts(explained, [{
        organizationId: recent.organizationId, deliveryId: sending, destinationId: defaultDestinationId(endpoint.id), jobId: "31", attemptNumber: 1, trigger: "auto",
        startedAt: new Date(), durationMs: 3, statusCode: 200, responseBody: "", error: null, status: "delivered", reason: null, retryInMs: null,
        uncount: 0, slot: "pass-on",
      }], cap))[0]?.next);
      expect(chained.result).toMatchObject({ verdict: "claimed", attempt: { deliveryId: idInWeek(4, 101) } });
      expect(chained.below).toEqual([]);
      expect(chained.planned).toEqual([]);
      // A job taking the oldest parked delivery itself (a claim naming none).
      const none = [{ deliveryId: null, destinationId: defaultDestinationId(endpoint.id), jobId: "32", trigger: "auto" as const }];
      const taken = await opened(() => explained.begin(async (tx) => {
        const [early, claim] = claimStatements(tx as unknown as postgres.ReservedSql, none, cap, await claimIdBounds(explained, none));
        await early;
        return { id: (await claim)[0]?.delivery_id, locked: await lockedBelow(tx) };
      }));
      expect(taken).toEqual({ result: { id: idInWeek(5, 101), locked: [] }, below: [], planned: [] });
      // A wake of the rest, with a slot freed.
      await sql`update destination_slots set in_flight = 0 where destination_id = 'dst_' || substr(${endpoint.id}, 4)`;
      const floor = await floorOfDestinations(explained, [defaultDestinationId(endpoint.id)]);
      const woken = await opened(() => explained.begin(async (tx) => ({
        ids: await wakeParkedDeliveries(rawRunner(tx), { destinationId: defaultDestinationId(endpoint.id), caps: cap, floor }),
        locked: await lockedBelow(tx),
      })));
      expect(woken).toEqual({ result: { ids: [idInWeek(5, 102)], locked: [] }, below: [], planned: [] });
      expect(plans.length).toBeGreaterThan(0);
    } finally {
      await explained.end();
    }
  });
});
