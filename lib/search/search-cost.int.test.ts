// What one organization's search reads: bodies of its own deliveries, one by one or through the indexes, never
// a scan of every organization's payloads. The planner may otherwise answer the walk's per-row body test with a
// "hashed SubPlan" (one pass over the whole table, then a hash probe per row): bench/dashboard saw it on 300,000
// deliveries, ~1 s a search, paid by the other tenants' shared database.
import { beforeAll, expect, it } from "vitest";
import { getDb, getSql } from "@/db";
import { createCtx, withTransaction } from "@/lib/context";
import { listDeliveries } from "@/lib/delivery/list-deliveries";
import { useTestDatabase } from "@/test/db";
import { seedDeliveryHistory } from "@/test/delivery-fixtures";
import { createOrganizationFixture } from "@/test/fixtures";
import { leavesOf } from "@/test/counting-reads";
import { timeOrderedIdFloor } from "@/lib/ids";
import { BODY_INDEX_TIME_BUCKET } from "@/db/online-indexes";
import { bucketsAround } from "@/lib/search/search-buckets";
import { inWeekAt } from "@/test/partition-weeks";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";

let searcher: Awaited<ReturnType<typeof createOrganizationFixture>>;
let deep: Awaited<ReturnType<typeof createOrganizationFixture>>;
const OLD_WITH_QZ = `dlv_s${"2999".padStart(24, "0")}`;

/**
 * A search in its own transaction, with the sequential scans of delivery_payloads it made and the payload rows it
 * read, through an index or a scan (each body read is tested, wanted or not).
 */
async function searchCountingScans(q: string, limit: number, organizationId = searcher.organizationId, cursor: string | null = null) {
  const ctx = createCtx(organizationId, { type: "system" }, getDb());
  return withTransaction(ctx, async (tx) => {
    // This transaction's own counts, not yet flushed to pg_stat_user_tables (with what this backend counted before
    // and has not flushed yet: hence the difference). Of delivery_payloads' partitions (the parent's own count
    // stays 0); an empty one's scan reads no row and is not counted.
    const counts = async () => (await tx.db.execute<{ seq_scan: string; read: string; deliveries_seq_read: string; list_read: string }>(
      `select count(*) filter (where seq_tup_read > 0 and relid in ${leavesOf("delivery_payloads")}) as seq_scan,
              coalesce(sum(idx_tup_fetch + seq_tup_read) filter (where relid in ${leavesOf("delivery_payloads")}), 0) as read,
              coalesce(sum(seq_tup_read) filter (where relid in ${leavesOf("deliveries")}), 0) as deliveries_seq_read,
              (select coalesce(sum(pg_stat_get_xact_tuples_returned(relid)), 0) from ${leavesOf("deliveries_org_received_idx")} i) as list_read
       from pg_stat_xact_user_tables`))[0]!;
    const before = await counts();
    const page = await listDeliveries({ ctx: tx, input: { q, limit, cursor } });
    const after = await counts();
    return {
      page, seqScans: Number(after.seq_scan), read: Number(after.read) - Number(before.read),
      deliveriesScanned: Number(after.deliveries_seq_read) - Number(before.deliveries_seq_read),
      listIndexRead: Number(after.list_read) - Number(before.list_read),
    };
  });
}

/** The organization's deliveries whose body holds `word`, newest first: what a search for it must answer. */
async function bodiesHolding(organizationId: string, word: string): Promise<string[]> {
  return (await getSql()<{ id: string }[]>`
    select d.id from deliveries d join delivery_payloads p on p.delivery_id = d.id
    where d.organization_id = ${organizationId} and position(convert_to(${word}, 'UTF8') in p.body) > 0
    order by d.received_at desc, d.id desc`).map((row) => row.id);
}

/** Every page of a search for q, in order, following nextCursor (at most 20 pages). */
async function everyPage(organizationId: string, q: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 20; pages++) {
    const { page } = await searchCountingScans(q, limit, organizationId, cursor);
    ids.push(...page.data.map((d) => d.id));
    cursor = page.nextCursor;
    if (!cursor) break;
  }
  return ids;
}

beforeAll(async () => {
  searcher = await createOrganizationFixture();
  const neighbour = await createOrganizationFixture("Neighbour");
  const sql = getSql();
  // The searcher's bodies hold the word in 1 of 100, the neighbour's never.
  await seedDeliveryHistory({ organizationId: searcher.organizationId, idPrefix: "s", count: 3000, word: "needle" });
  await seedDeliveryHistory({ organizationId: neighbour.organizationId, idPrefix: "n", count: 20000 });
  deep = await createOrganizationFixture("Deep");
  // Ending last Saturday noon: all in one partition, the legacy one (the run's template was migrated since), and
  // inside one week, as a big table's week holds them. Each bucket's statement names its whole week's ids
  // (inBucketsOf); ending now, the newest minutes since the template went to this week's partition, a few hundred
  // rows that the planner rightly reads whole, once per bucket asked; ending an hour ago early on a Monday, this
  // week's ids in the legacy partition are those few minutes', read whole likewise (3,647 rows read at 01:28
  // Monday). Either way the count would follow the clock.
  await seedDeliveryHistory({ organizationId: deep.organizationId, idPrefix: "d", count: 40000, word: "thimble", timeOrdered: true, endingAt: inWeekAt(-1, 5).getTime() });
  // Two letters, in one of the searcher's oldest bodies only: too short for a trigram index.
  await sql`update delivery_payloads set body = body || convert_to(' qz', 'UTF8') where delivery_id = ${OLD_WITH_QZ}`;
  await sql`analyze deliveries`;
  // The columns alone: a whole-table ANALYZE also computes the word index's expression for its sample (30,000 bodies
  // parsed), past the statement timeout on a busy machine.
  await sql`analyze delivery_payloads (delivery_id, organization_id, searchable)`;
}, 240_000); // 69,000 deliveries, each body's words into the word index as stored: over a minute on a busy clean clone

it("a search reads no other organization's payloads: no scan of delivery_payloads", async () => {
  const { page, seqScans } = await searchCountingScans("needle", 20);
  expect(page.data).toHaveLength(20);
  expect(page.nextCursor).not.toBeNull();
  expect(seqScans).toBe(0);
});

it("nor does a q too short for the trigram index: it walks the organization's own deliveries", async () => {
  const found = await searchCountingScans("qz", 5);
  expect(found.page.data.map((d) => d.id)).toEqual([OLD_WITH_QZ]);
  expect(found.seqScans).toBe(0);
  const absent = await searchCountingScans("zq", 5);
  expect(absent.page.data).toEqual([]);
  expect(absent.seqScans).toBe(0);
});

it("walks a bounded stretch a page for such a q: an empty page that says where to resume, then the match", async () => {
  process.env.INBOX_SEARCH_WINDOW = "30"; // a stretch of 3 windows: 90 deliveries a page
  try {
    const pages: number[] = [];
    const found: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Awaited<ReturnType<typeof listDeliveries>> = await listDeliveries({ ctx: searcher.ctx, input: { q: "qz", limit: 5, cursor } });
      pages.push(page.data.length);
      found.push(...page.data.map((d) => d.id));
      cursor = page.nextCursor;
    } while (cursor && pages.length < 100);
    expect(found).toEqual([OLD_WITH_QZ]);
    // 3,000 deliveries: the probe's 3 and 90 a page, so ~33 pages, every one but the match's empty.
    expect(pages.length).toBeGreaterThanOrEqual(25);
    expect(pages.filter((n) => n > 0)).toEqual([1]);
  } finally {
    delete process.env.INBOX_SEARCH_WINDOW;
  }
});

it("asks the body index for the time buckets of the deliveries its hits say hold the page, not for every older match", async () => {
  // 400 of the 40,000 bodies (one a second, ~11 hours: 24 buckets of ~28 min) hold the word, 1 in 100. A walk of
  // 100 finds 1, too few to walk the window on for 19 more, so the indexes answer: for the buckets around the
  // next ~3,800 seconds of receipts (SLICE_MARGIN), at most 4 and one either side, not for all 399 older matches,
  // each fetched and tested.
  process.env.INBOX_SEARCH_WINDOW = "1000";
  try {
    const { page, read, deliveriesScanned, listIndexRead } = await searchCountingScans("thimble", 20, deep.organizationId);
    const newest = await bodiesHolding(deep.organizationId, "thimble");
    expect(newest).toHaveLength(400);
    expect(page.data.map((d) => d.id)).toEqual(newest.slice(0, 20));
    // The walk read its 100 bodies by primary key; the buckets' matches (~17 a bucket, at most 6 buckets) up to ~100 more.
    expect(read).toBeGreaterThan(100);
    expect(read).toBeLessThan(220);
    // The slice's buckets come from its times: the list index hands over the walk's 100 deliveries, the page's
    // edges and the page, not the slice's ~3,800 deliveries to learn their ids (4,201 entries when it did).
    expect(listIndexRead).toBeLessThan(1000);
    // Nor any other organization's deliveries: whether anything older is left is the list index's next entry,
    // not a scan that reads every tenant's rows before the first of this one's.
    expect(deliveriesScanned).toBe(0);
  } finally {
    delete process.env.INBOX_SEARCH_WINDOW;
  }
});

it("calls off the clock exactly the ids that the buckets around their receipt do not hold (SQL and TypeScript agree)", async () => {
  const bucketMs = BODY_INDEX_TIME_BUCKET.ms;
  const start = Math.ceil(Date.UTC(2026, 11, 5) / bucketMs) * bucketMs; // a bucket's first millisecond
  const cases: { receivedMs: number; id: string; around: boolean }[] = [];
  for (const receivedMs of [start, start + bucketMs / 2, start + bucketMs - 1]) {
    for (let k = -3; k <= 3; k++) {
      for (const nudge of [-1, 0, 1]) {
        const id = timeOrderedIdFloor("dlv", receivedMs + k * bucketMs + nudge) + "k00000000000000";
        cases.push({ receivedMs, id, around: bucketsAround(receivedMs, receivedMs).includes(id.slice(0, BODY_INDEX_TIME_BUCKET.length)) });
      }
    }
  }
  const offClock = await getSql()<{ off: boolean }[]>`
    select inbox_delivery_id_off_clock(c.id, to_timestamp(c.ms::float8 / 1000)) as off
    from unnest(${cases.map((c) => c.id)}::text[], ${cases.map((c) => c.receivedMs)}::bigint[]) with ordinality as c(id, ms, n) order by n`;
  expect(offClock.map((row) => row.off)).toEqual(cases.map((c) => !c.around));
  expect(new Set(cases.map((c) => c.around))).toEqual(new Set([true, false]));
});

it("finds, in its place, a delivery whose id was made off the database's clock, which its receipt's buckets do not hold", async () => {
  // Two of the word's deliveries received in the middle of the history: one whose id was made 3 hours before its
  // receipt (an app clock that far behind), one with an id made before ids held their time. Neither id is in the
  // buckets around its receipt; deliveries_org_off_clock_idx holds both and no other of the organization's.
  const skewed = await createOrganizationFixture("Skewed");
  await seedDeliveryHistory({ organizationId: skewed.organizationId, idPrefix: "k", count: 6000, word: "thimble", timeOrdered: true, endingAt: Date.now() - 3_600_000 });
  const receivedMs = Date.now() - 3_600_000 - 3000 * 1000 - 500;
  const offClock = [timeOrderedIdFloor("dlv", receivedMs - 3 * 3_600_000) + "k00000000000000", `dlv_k${"9".repeat(24)}`];
  const sql = getSql();
  for (const [i, id] of offClock.entries()) {
    await sql`insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, pending_since)
      values (${id}, ${skewed.organizationId}, 'ep_k', 'dst_k', ${id}, 'delivered', 20, to_timestamp(${receivedMs + i}::float8 / 1000), now())`;
    await sql`insert into delivery_payloads (delivery_id, organization_id, headers, body, searchable)
      values (${id}, ${skewed.organizationId}, '{}', convert_to('{"note":"thimble"}', 'UTF8'), true)`;
  }
  const held = await sql<{ id: string }[]>`select id from deliveries
    where organization_id = ${skewed.organizationId} and inbox_delivery_id_off_clock(id, received_at) order by id`;
  expect(held.map((row) => row.id)).toEqual([...offClock].sort());
  const want = await bodiesHolding(skewed.organizationId, "thimble");
  expect(want).toHaveLength(62);
  expect(want.indexOf(offClock[0]!)).toBeGreaterThan(25);
  process.env.INBOX_SEARCH_WINDOW = "1000";
  try {
    expect(await everyPage(skewed.organizationId, "thimble", 20)).toEqual(want);
  } finally {
    delete process.env.INBOX_SEARCH_WINDOW;
  }
});

it("pages through every match in order, slice after slice, to the oldest", async () => {
  process.env.INBOX_SEARCH_WINDOW = "1000";
  try {
    expect(await everyPage(deep.organizationId, "thimble", 70)).toEqual(await bodiesHolding(deep.organizationId, "thimble"));
  } finally {
    delete process.env.INBOX_SEARCH_WINDOW;
  }
});
