// Retention by whole weeks: a past week of delivery partitions goes as three tables only when every delivery in
// it is settled and past its own organization's retention, with its keys and the counters' removals; a week
// holding one delivery someone keeps stays, and so does one changed while it was being dropped.
import { describe, expect, it } from "vitest";
import { getSql } from "@/db";
import { replayDelivery } from "@/lib/delivery/replay-delivery";
import { replayDeliveries } from "@/lib/delivery/replay-deliveries";
import { makeDeliveryPartitions } from "@/lib/storage/delivery-partitions";
import { createEndpointFixture, until } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { useTestDatabase } from "@/test/db";
import { idInWeek, inWeekAt, monday } from "@/test/partition-weeks";
import { applyRetention } from "./apply-retention";
import { dropExpiredDeliveryWeeks } from "./drop-expired-delivery-weeks";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.DELIVERY_LOG = "problems";

const TABLES = ["deliveries", "delivery_payloads", "attempts"] as const;

async function organization(retentionDays: number) {
  const org = await createOrganizationFixture(`Weeks ${retentionDays}`);
  await getSql()`update organizations set retention_days = ${retentionDays} where id = ${org.organizationId}`;
  const endpoint = await createEndpointFixture(org.ctx, "http://127.0.0.1:9/hook");
  return { ...org, endpointId: endpoint.id };
}
type Org = Awaited<ReturnType<typeof organization>>;

/** A delivery of the week `week` ahead (its id says so), with its payload, one attempt and its dedupe key, as ingest and a finish leave them. */
async function store(org: Org, id: string, status: "pending" | "delivered" | "dead" | "filtered", changed: string) {
  await getSql()`
    with k as (insert into delivery_keys (endpoint_id, external_id, delivery_id) values (${org.endpointId}, ${"evt_" + id}, ${id})),
    d as (insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, updated_at)
      values (${id}, ${org.organizationId}, ${org.endpointId}, 'dst_' || substr(${org.endpointId}, 4), ${"evt_" + id}, ${status}, 2, now() - ${changed}::interval) returning id, organization_id),
    p as (insert into delivery_payloads (delivery_id, organization_id, headers, body) select id, organization_id, '{}', '\\x7b7d' from d)
    insert into attempts (organization_id, delivery_id, number, trigger, started_at, status_code) select organization_id, id, 1, 'auto', now(), 200 from d`;
}

const partitionsOf = async (week: number) =>
  (await getSql()<{ name: string }[]>`select relname as name from pg_class where relname = any(${TABLES.map((t) => `${t}_w${monday(week)}`)}) order by 1`).map((r) => r.name);
const keysOf = async (ids: string[]) =>
  (await getSql()<{ id: string }[]>`select delivery_id as id from delivery_keys where delivery_id = any(${ids}) order by 1`).map((r) => r.id);
/** The endpoint's stored deliveries as its counters tell them: received less removed, not yet folded. */
const counted = async (endpointId: string) => {
  const rows = await getSql()<{ event: string; n: number }[]>`
    select event, sum(count)::int as n from delivery_counter_events where endpoint_id = ${endpointId} group by 1`;
  return Object.fromEntries(rows.map((r) => [r.event, r.n]));
};

const noBudgetLimit = { outOfBudget: () => false, afterBatch: async () => {} };
const later = inWeekAt(12, 1);

/** Drops the past weeks left empty, then makes `week`'s partitions: the drops below look at that week alone. */
async function onlyWeek(week: number) {
  await dropExpiredDeliveryWeeks({ now: later, batchSize: 100, ...noBudgetLimit });
  await getSql()`select inbox_make_delivery_week(${monday(week)}::text::date)`;
}

describe("retention by whole weeks", () => {
  it("drops a past week only when every delivery in it is past its own organization's retention, with its keys and the counters' removals", async () => {
    const sql = getSql();
    await makeDeliveryPartitions(sql, 12);
    const short = await organization(1);
    const long = await organization(30);
    // Week 8: all past retention, for both organizations.
    const week8 = { short: [1, 2, 3, 4, 5].map((n) => idInWeek(8, n)), long: [6, 7].map((n) => idInWeek(8, n)) };
    for (const [i, id] of week8.short.entries()) await store(short, id, i < 3 ? "delivered" : "dead", "2 days");
    for (const id of week8.long) await store(long, id, "delivered", "40 days");
    // And a third organization's request no destination took (filtered), past its day: it goes with its week.
    const filteredOnly = await organization(1);
    const week8Filtered = idInWeek(8, 8);
    await store(filteredOnly, week8Filtered, "filtered", "2 days");
    // Week 9: the short organization's delivery is past its day; the long one's, 10 days old, is within its 30.
    const week9 = [idInWeek(9, 1), idInWeek(9, 2)];
    await store(short, week9[0]!, "delivered", "2 days");
    await store(long, week9[1]!, "delivered", "10 days");
    // Week 10: past retention, but one is pending (parked or waiting: never removed).
    const week10 = [idInWeek(10, 1), idInWeek(10, 2)];
    await store(short, week10[0]!, "delivered", "2 days");
    await store(short, week10[1]!, "pending", "2 days");

    const batches: number[] = [];
    const dropped = await dropExpiredDeliveryWeeks({
      now: later,
      batchSize: 2,
      outOfBudget: () => false,
      afterBatch: async (keys) => void batches.push(keys),
    });

    expect(dropped.weeks).toContain(monday(8));
    expect(dropped.weeks).not.toContain(monday(9));
    expect(dropped.weeks).not.toContain(monday(10));
    expect(dropped.deliveries).toBe(8);
    expect(dropped.finished).toBe(true);
    expect(await partitionsOf(8)).toEqual([]);
    // Keys went in batches of at most 2, walked by id; those of the weeks kept are all there.
    expect(Math.max(...batches)).toBeLessThanOrEqual(2);
    expect(batches.reduce((a, b) => a + b, 0)).toBe(8);
    expect(await keysOf([...week8.short, ...week8.long, week8Filtered])).toEqual([]);
    expect(await keysOf([...week9, ...week10])).toEqual([...week9, ...week10].sort());
    for (const week of [9, 10]) expect(await partitionsOf(week)).toHaveLength(3);
    // The counters: each endpoint's removals, as a DELETE's trigger would have written them.
    expect(await counted(short.endpointId)).toMatchObject({ received: 8, removed: 5, no_longer_delivered: 3, no_longer_dead: 2 });
    expect(await counted(long.endpointId)).toMatchObject({ received: 3, removed: 2, no_longer_delivered: 2 });
    // A filtered row was never counted as received: its removal is not counted either.
    expect(await counted(filteredOnly.endpointId)).not.toHaveProperty("removed");
    // Nothing is lost if an id of a dropped week turns up after all: the default partition takes it.
    const straggler = idInWeek(8, 99);
    await sql`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, size_bytes) values (${straggler}, ${short.organizationId}, ${short.endpointId}, 'dst_' || substr(${short.endpointId}, 4), 'evt_straggler', 1)`;
    expect((await sql`select tableoid::regclass::text as name from deliveries where id = ${straggler}`)[0]!.name).toBe("deliveries_default");
  });

  it("gives way to a reader, keeps the week of a delivery replayed meanwhile, and a replay, single or bulk, keeps its dedupe keys", async () => {
    const sql = getSql();
    await onlyWeek(11);
    const org = await organization(1);
    const ids = [1, 2, 3].map((n) => idInWeek(11, n));
    for (const id of ids) await store(org, id, "delivered", "2 days");

    // A statement reading deliveries in flight: the drop never queues for its lock, and gives up after its tries.
    const reader = await sql.reserve();
    try {
      await reader`begin`;
      await reader`select count(*) from deliveries where id = ${ids[0]!}`;
      const busy = await dropExpiredDeliveryWeeks({ now: later, batchSize: 10, ...noBudgetLimit });
      expect(busy).toMatchObject({ weeks: [], finished: false });
    } finally {
      await reader`rollback`;
      reader.release();
    }
    expect(await partitionsOf(11)).toHaveLength(3);
    // Its keys went before the drop gave way (they are past retention); a replay puts its delivery's back.
    expect(await keysOf(ids)).toEqual([]);
    await replayDelivery({ ctx: org.ctx, input: { id: ids[0]! } });
    expect(await keysOf(ids)).toEqual([ids[0]]);
    // So does a bulk replay, each of its deliveries'.
    expect(await replayDeliveries({ ctx: org.ctx, input: { filter: { endpointId: org.endpointId, status: "delivered" } } })).toEqual({ count: 2 });
    expect(await keysOf(ids)).toEqual(ids);

    const again = await dropExpiredDeliveryWeeks({ now: later, batchSize: 10, ...noBudgetLimit });
    expect(again.weeks).not.toContain(monday(11));
    expect((await sql`select status from deliveries where id = any(${ids}) order by id`).map((r) => r.status)).toEqual(["pending", "pending", "pending"]);
    expect(await keysOf(ids)).toEqual(ids);
  });

  it("looks again under the lock: a delivery changed after the first look keeps its week", async () => {
    const sql = getSql();
    await onlyWeek(7);
    const org = await organization(1);
    const ids = [1, 2].map((n) => idInWeek(7, n));
    for (const id of ids) await store(org, id, "delivered", "2 days");

    // A replay in flight when the drop starts (its row changed, not committed): the first look cannot see it,
    // the drop's lock is refused while it holds the table, and it commits once that look is past (the week's
    // keys, which go after it, are gone).
    const replay = await sql.reserve();
    try {
      await replay`begin`;
      await replay`update deliveries set status = 'pending', updated_at = now() where id = ${ids[0]!}`;
      const dropping = dropExpiredDeliveryWeeks({ now: later, batchSize: 10, ...noBudgetLimit });
      await until("the drop past its first look", async () => (await keysOf(ids)).length === 0, 5_000);
      await replay`commit`;
      const dropped = await dropping;
      expect(dropped.weeks).not.toContain(monday(7));
    } finally {
      replay.release();
    }
    expect(await partitionsOf(7)).toHaveLength(3);
    expect((await sql`select count(*)::int as n from deliveries where id = any(${ids})`)[0]!.n).toBe(2);
    // Nothing was counted as removed.
    expect((await counted(org.endpointId)).removed ?? 0).toBe(0);
  });

  it("are what the retention sweep does first, its keys counted in the run's row budget", async () => {
    await onlyWeek(6);
    const org = await organization(1);
    const ids = [1, 2, 3].map((n) => idInWeek(6, n));
    for (const id of ids) await store(org, id, "dead", "3 days");

    // A budget of 2 rows: the keys' first batch spends it, and the run stops before the drop; the next one drops.
    const settings = { batchSize: 2, runMs: 60_000, rowsPerRun: 2, pauseFactor: 0 };
    const first = await applyRetention({ settings, now: later });
    expect(first).toMatchObject({ ran: true, finished: false, weeksDropped: { weeks: [], deliveries: 0 } });
    expect(await partitionsOf(6)).toHaveLength(3);
    const second = await applyRetention({ settings: { ...settings, rowsPerRun: 1_000 }, now: later });
    expect(second.weeksDropped).toEqual({ weeks: [monday(6)], deliveries: 3 });
    expect(second.deleted.deliveries).toBeGreaterThanOrEqual(3);
    expect(await partitionsOf(6)).toEqual([]);
  });
});
