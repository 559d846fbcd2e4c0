// The retention sweep on a real database: settled deliveries with their attempts past each organization's
// retention go, in bounded batches taking turns between organizations; what waits, or a replay holds, never does.
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { getDb, getSql } from "@/db";
import type { Ctx } from "@/lib/context";
import { replayDelivery } from "@/lib/delivery/replay-delivery";
import { NotFoundError } from "@/lib/errors";
import { newId } from "@/lib/ids";
import { useTestDatabase } from "@/test/db";
import { applyRetention } from "./apply-retention";
import { organization, unbounded } from "@/test/retention-fixtures";

useTestDatabase();
process.env.INBOX_ALLOW_PRIVATE_DESTINATIONS = "true";
process.env.DELIVERY_LOG = "problems"; // the replays below would log a line each

interface Seed {
  status: "pending" | "delivering" | "delivered" | "dead";
  /** How long ago its last change was, as a PostgreSQL interval ('40 days'). */
  changed: string;
  count?: number;
  attempts?: number;
  parked?: boolean;
  /**
   * A live claim (an attempt in flight), as a bury leaves it: its lease outlasts the file's run, or the delivery
   * would become the sweep's to remove partway through it (with a minute, a slow run's later tests counted one
   * more organization with expired records).
   */
  claimed?: boolean;
}

/** Deliveries written straight in SQL (generate_series), with `attempts` attempts each; their ids. */
async function seed(org: { ctx: Ctx; endpointId: string }, s: Seed): Promise<string[]> {
  const rows = await getSql()<{ id: string }[]>`
    with d as (
    insert into deliveries (id, organization_id, endpoint_id, destination_id, external_id, status, size_bytes, received_at, updated_at,
      attempt_count, claimed_by_job, lease_expires_at, parked_at)
    select 'dlv_' || substr(md5(random()::text || n), 1, 25), ${org.ctx.organizationId}, ${org.endpointId}, 'dst_' || substr(${org.endpointId}, 4), 'evt_' || md5(random()::text || n),
      ${s.status}, 2, now() - ${s.changed}::interval - interval '1 minute', now() - ${s.changed}::interval,
      ${s.attempts ?? 0},
      case when ${s.status === "delivering" || Boolean(s.claimed)} then '4242' end,
      case when ${s.status === "delivering" || Boolean(s.claimed)} then now() + interval '1 hour' end,
      case when ${Boolean(s.parked)} then now() - ${s.changed}::interval end
    from generate_series(1, ${s.count ?? 1}) n
    returning id, organization_id
    ), p as (insert into delivery_payloads (delivery_id, organization_id, headers, body) select id, organization_id, '{}'::jsonb, '\\x7b7d'::bytea from d)
    select id from d`;
  if (s.attempts) {
    await getSql()`
      insert into attempts (organization_id, delivery_id, number, trigger, started_at, status_code)
      select ${org.ctx.organizationId}, d.id, a, 'auto', now() - ${s.changed}::interval, 500
      from unnest(${rows.map((r) => r.id)}::text[]) d(id), generate_series(1, ${s.attempts}) a`;
  }
  return rows.map((r) => r.id);
}

async function remaining(ids: string[]): Promise<string[]> {
  const rows = await getSql()<{ id: string }[]>`select id from deliveries where id = any(${ids}::text[])`;
  // A delivery's payload goes with it (the cascade), and stays while it stays.
  const payloads = await getSql()<{ id: string }[]>`select delivery_id as id from delivery_payloads where delivery_id = any(${ids}::text[])`;
  expect(payloads.map((r) => r.id).sort()).toEqual(rows.map((r) => r.id).sort());
  return rows.map((r) => r.id);
}

const countOf = async (organizationId: string) =>
  (await getSql()<{ n: number }[]>`select count(*)::int as n from deliveries where organization_id = ${organizationId}`)[0]!.n;

describe("the retention sweep", () => {
  it("removes settled deliveries past the retention with their attempts, and keeps everything else", async () => {
    const org = await organization(30);
    const delivered = await seed(org, { status: "delivered", changed: "40 days", count: 3, attempts: 2 });
    const dead = await seed(org, { status: "dead", changed: "31 days", count: 2, attempts: 8 });
    const kept = {
      pending: await seed(org, { status: "pending", changed: "300 days", attempts: 3 }),
      delivering: await seed(org, { status: "delivering", changed: "300 days", attempts: 1 }),
      parked: await seed(org, { status: "pending", changed: "300 days", parked: true }),
      recentDelivered: await seed(org, { status: "delivered", changed: "29 days", attempts: 1 }),
      recentDead: await seed(org, { status: "dead", changed: "1 hour", attempts: 8 }),
      // Buried while its attempt was in flight: that attempt's finish must still find its row.
      buriedInFlight: await seed(org, { status: "dead", changed: "40 days", claimed: true }),
    };

    const run = await applyRetention({ settings: unbounded });

    expect(run).toMatchObject({ ran: true, finished: true });
    expect(await remaining([...delivered, ...dead])).toEqual([]);
    const [{ n: orphanAttempts }] = await getSql()`select count(*)::int as n from attempts where delivery_id = any(${[...delivered, ...dead]}::text[])`;
    expect(orphanAttempts).toBe(0);
    for (const [what, ids] of Object.entries(kept)) expect(await remaining(ids), what).toEqual(ids);
    const [{ n: keptAttempts }] = await getSql()`select count(*)::int as n from attempts where organization_id = ${org.organizationId}`;
    expect(keptAttempts).toBe(3 + 1 + 1 + 8);
  });

  it("leaves an organization keeping 365 days untouched while it sweeps one keeping 1 day", async () => {
    const keepsLong = await organization(365);
    const keepsShort = await organization(1);
    const longIds = await seed(keepsLong, { status: "delivered", changed: "300 days", count: 50, attempts: 1 });
    const shortIds = await seed(keepsShort, { status: "delivered", changed: "25 hours", count: 50, attempts: 1 });
    const shortRecent = await seed(keepsShort, { status: "dead", changed: "23 hours" });

    await applyRetention({ settings: unbounded });

    expect(await remaining(longIds)).toHaveLength(50);
    expect(await remaining(shortIds)).toEqual([]);
    expect(await remaining(shortRecent)).toEqual(shortRecent);
  });

  it("applies a retention changed a moment ago: the database's clock and the current setting", async () => {
    const org = await organization(30);
    const ids = await seed(org, { status: "delivered", changed: "3 days", count: 5 });
    await applyRetention({ settings: unbounded });
    expect(await remaining(ids)).toHaveLength(5);
    await getSql()`update organizations set retention_days = 2 where id = ${org.organizationId}`;
    await applyRetention({ settings: unbounded });
    expect(await remaining(ids)).toEqual([]);
  });
});

describe("bounded work", () => {
  afterEach(async () => {
    await getSql()`drop trigger if exists record_retention_batches on deliveries`;
  });

  it("deletes in statements of at most a batch, each its own transaction, and stops at the run's row budget", async () => {
    await getSql().unsafe(`
      create table if not exists retention_batches (at timestamptz default clock_timestamp(), xid bigint, n int);
      create or replace function record_retention_batch() returns trigger language plpgsql as $$
      begin insert into retention_batches (xid, n) select txid_current(), count(*) from gone; return null; end $$;
      create trigger record_retention_batches after delete on deliveries referencing old table as gone
        for each statement execute function record_retention_batch();`);
    const org = await organization(1);
    await seed(org, { status: "delivered", changed: "2 days", count: 2_500, attempts: 1 });

    const first = await applyRetention({ settings: { ...unbounded, batchSize: 1_000, rowsPerRun: 1_500 } });
    expect(first).toMatchObject({ finished: false, deleted: { deliveries: 1_500 } });
    expect(await countOf(org.organizationId)).toBe(1_000);
    const second = await applyRetention({ settings: { ...unbounded, batchSize: 1_000, rowsPerRun: 1_500 } });
    expect(second).toMatchObject({ finished: true, deleted: { deliveries: 1_000 } });
    expect(await countOf(org.organizationId)).toBe(0);

    const batches = await getSql()<{ xid: string; n: number }[]>`select xid, n from retention_batches where n > 0 order by at`;
    expect(batches.map((b) => b.n)).toEqual([1_000, 500, 1_000]);
    expect(new Set(batches.map((b) => b.xid)).size).toBe(batches.length);
  });

  it("takes turns between organizations: one's huge backlog does not hold up the others' sweep", async () => {
    const big = [await organization(1), await organization(1)];
    const small = [await organization(1), await organization(1), await organization(1)];
    for (const org of big) await seed(org, { status: "delivered", changed: "2 days", count: 3_000 });
    for (const org of small) await seed(org, { status: "dead", changed: "2 days", count: 30, attempts: 2 });

    // 600 rows in batches of 100: the first round is 100 + 100 + 3 × 30 = 290 rows, so the small ones
    // are done in it whatever the order; taking one organization at a time would finish a big one first.
    const run = await applyRetention({ settings: { ...unbounded, batchSize: 100, rowsPerRun: 600 } });

    expect(run).toMatchObject({ finished: false, organizations: 5, deleted: { deliveries: 600 } });
    for (const org of small) expect(await countOf(org.organizationId)).toBe(0);
    const left = [await countOf(big[0]!.organizationId), await countOf(big[1]!.organizationId)];
    expect(left[0]! + left[1]!).toBe(6_000 - 510);
    for (const n of left) expect(n).toBeLessThanOrEqual(3_000 - 200);
  });

  it("runs one sweep at a time: a second one while the first holds the lock does nothing", async () => {
    const org = await organization(1);
    const ids = await seed(org, { status: "delivered", changed: "2 days", count: 3 });
    const holder = await getSql().reserve();
    try {
      await holder`select pg_advisory_lock(hashtext('webhook-inbox:retention-sweep'))`;
      expect(await applyRetention({ settings: unbounded })).toMatchObject({ ran: false, deleted: { deliveries: 0 } });
      expect(await remaining(ids)).toEqual(ids);
    } finally {
      await holder`select pg_advisory_unlock(hashtext('webhook-inbox:retention-sweep'))`;
      holder.release();
    }
    await applyRetention({ settings: unbounded });
    expect(await remaining(ids)).toEqual([]);
  });
});

describe("a replay racing the sweep", () => {
  it("skips a delivery a replay holds, without waiting, and keeps it once the replay commits", async () => {
    const org = await organization(1);
    const [id] = await seed(org, { status: "delivered", changed: "2 days", attempts: 1 });
    await getDb().transaction(async (tx) => {
      await replayDelivery({ ctx: { ...org.ctx, db: tx }, input: { id: id! } });
      // The replay has not committed: the sweep sees a settled, expired row it cannot lock, and moves on.
      const run = await applyRetention({ settings: unbounded });
      expect(run.finished).toBe(true);
      expect(await remaining([id!])).toEqual([id]);
    });
    await applyRetention({ settings: unbounded });
    const [row] = await getSql()`select status from deliveries where id = ${id!}`;
    expect(row?.status).toBe("pending");
  });

  it("never loses a delivery whose replay went through, with sweeps and replays running at once", async () => {
    const org = await organization(1);
    const ids = await seed(org, { status: "dead", changed: "2 days", count: 600, attempts: 1 });
    const replayed: string[] = [];
    let refused = 0;
    const order = [...ids].sort(() => Math.random() - 0.5).slice(0, 300);
    let sweeping = true;
    const sweeps = (async () => {
      let runs = 0;
      while (sweeping) {
        await applyRetention({ settings: { ...unbounded, batchSize: 7 } });
        runs++;
      }
      return runs;
    })();
    await Promise.all(Array.from({ length: 8 }, async (_, worker) => {
      for (let i = worker; i < order.length; i += 8) {
        try {
          await replayDelivery({ ctx: org.ctx, input: { id: order[i]! } });
          replayed.push(order[i]!);
        } catch (error) {
          if (!(error instanceof NotFoundError)) throw error; // only "already removed" may refuse a replay here
          refused++;
        }
      }
    }));
    sweeping = false;
    expect(await sweeps).toBeGreaterThan(0);
    await applyRetention({ settings: unbounded });

    console.log(`replays through: ${replayed.length}, refused (already removed): ${refused}`);
    expect(replayed.length + refused).toBe(300);
    expect(replayed.length).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0); // the sweep really raced the replays
    const rows = await getSql()<{ id: string; status: string }[]>`select id, status from deliveries where organization_id = ${org.organizationId}`;
    expect(rows.map((r) => r.id).sort()).toEqual([...replayed].sort());
    expect(new Set(rows.map((r) => r.status))).toEqual(new Set(["pending"]));
  });
});
