// An destination's attempt slots (its concurrency cap), shared by every worker process through the
// database: the destination's destination_slots rows add up to its `delivering` deliveries (a claim adds
// one to its job's shard, the end of the attempt takes it back; rescue-deliveries.ts recounts them
// from the rows every minute). Shards keep a busy destination's attempts from queueing on one row. Claims and wake-ups of one destination serialise on a transaction-scoped advisory
// lock, so no more than the cap are ever claimed. No job spins waiting for a slot: a job that finds the
// destination full parks its delivery (pending, no job) and ends.
//
// NO LOST WAKE-UP, without locking every finish: each side looks after its own commit. An attempt
// that ends commits first, then asks "is anything parked?" (wakeNeededMany); a claim that parks
// commits, then asks "is a slot free now?" (wakeNeededMany). Whichever of the two commits last sees
// the other's commit, so a parked delivery and a free slot are always brought together (by
// hand-on-slots.ts, under the lock).
//
// DURABILITY: the worker's claim and finish transactions commit with synchronous_commit = off, so
// the destination's lock is not held through a WAL flush. That is safe because graphile-worker then
// completes the job with an ordinary (flushed) commit: WAL is flushed in order, so once the job's
// completion is durable, so is the outcome recorded before it; if the database crashes before
// that, the job is still there and runs again (takeover), which at-least-once allows.
//
// THE ORGANIZATION'S CAP: an organization's attempts in flight (its destination_slots rows summed) stay
// within ORG_DELIVERY_CONCURRENCY, so one tenant's hanging destinations cannot hold every worker
// slot. Claims that take a slot hold the organization's advisory lock (taken before any destination's),
// so the cap is exact. A delivery parked because its organization was full marks its destination in
// org_waiting_destinations; an attempt that ends and frees a slot looks at its organization's marked
// destinations too (same no-lost-wake-up rule: each side looks after its own commit).
//
// The statements are written once, as drizzle `sql`, and run either in a drizzle transaction
// (tenant verbs: resume) or on a raw postgres.js connection (the worker's hot path).
import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type postgres from "postgres";
import type { DbOrTx } from "@/db";
import type { SlotCaps } from "./settings";
import { WAKE_PARKED } from "./sql/wake-parked";

/** destination_slots shard of a claim: `hashtext(job id) & SHARD_MASK` (16 shards). */
export const SHARD_MASK = 15;

export type Runner = (query: SQL) => Promise<readonly Record<string, unknown>[]>;

const dialect = new PgDialect();

/** Runs on a raw postgres.js connection; each query is sent at once, in call order (see pipelined-transaction.ts). */
export function rawRunner(tx: postgres.Sql | postgres.ReservedSql | postgres.TransactionSql): Runner {
  return (query) => {
    const compiled = dialect.sqlToQuery(query);
    // Prepared: the worker runs the same few statements thousands of times a second.
    return tx.unsafe(compiled.sql, compiled.params as postgres.ParameterOrJSON<never>[], { prepare: true }).execute();
  };
}

export function drizzleRunner(db: DbOrTx): Runner {
  return async (query) => (await db.execute(query)) as unknown as Record<string, unknown>[];
}

/** The advisory locks of destinations' slots: (hashtext(this), hashtext(destination id)). */
export const SLOT_LOCK_NAMESPACE = "webhook-inbox:destination-slots";

/** The advisory locks of organizations' slots, always taken before any destination's: (hashtext(this), hashtext(organization id)). */
export const ORG_SLOT_LOCK_NAMESPACE = "webhook-inbox:org-slots";

/** Takes the destination's slot lock until the transaction ends (unless `skipIf`, a SQL condition, holds). */
export async function lockDestinationSlots(run: Runner, destinationId: string, skipIf?: SQL): Promise<void> {
  await run(sql`select pg_advisory_xact_lock(hashtext(${SLOT_LOCK_NAMESPACE}), hashtext(${destinationId}))
    ${skipIf ? sql`where not (${skipIf})` : sql``}`);
}

/**
 * Takes the slot lock of the destination's organization until the transaction ends (unless `skipIf`
 * holds). Every transaction that claims a new slot holds it, before its destination's lock.
 */
export async function lockOrgSlotsOfDestination(run: Runner, destinationId: string, skipIf?: SQL): Promise<void> {
  await run(sql`select pg_advisory_xact_lock(hashtext(${ORG_SLOT_LOCK_NAMESPACE}), hashtext(e.organization_id))
    from destinations e where e.id = ${destinationId} ${skipIf ? sql`and not (${skipIf})` : sql``}`);
}

/**
 * Unparks the destination's oldest parked deliveries, as many as it has free slots (none while it is
 * paused), and enqueues their jobs, in one statement (WAKE_PARKED, sql/wake-parked.ts). Call with the slot
 * lock held. `floor`: its organization's delivery id floor, or one below (lib/storage/delivery-id-floor.ts),
 * so the pick reads the weeks from there on only. Returns the woken deliveries' ids.
 */
export async function wakeParkedDeliveries(run: Runner, input: { destinationId: string; caps: SlotCaps; floor: string }): Promise<string[]> {
  const [row] = (await run(WAKE_PARKED(input))) as { ids: string[]; enqueued: number }[];
  return row?.ids ?? [];
}

/** What wakeNeededMany saw after a commit, at one destination. */
export interface ParkedLook {
  /** Something is parked at this destination while it and its organization have a free slot and it is not paused: hand slots on. */
  needed: boolean;
  /**
   * Other destinations of the organization with deliveries parked behind its cap, which a free
   * organization slot could now serve (org_waiting_destinations): an attempt that freed its slot hands on there too.
   */
  orgWaiting: string[];
  organizationId: string | null;
}

/** Nothing to hand on: also the look of an attempt that passed its slot on to a parked delivery (it freed nothing). */
export const NOTHING_TO_HAND_ON: ParkedLook = { needed: false, orgWaiting: [], organizationId: null };

/**
 * One destination's look from a batch's wakeNeededMany, for one of its callers. Only the first is told
 * to hand slots on (and only the first of an organization's to serve its waiting destinations): one
 * hand-on wakes as many parked deliveries as there are free slots, and a batch's callers all asking
 * at once would queue on the destination's lock for nothing.
 */
export function takeLook(looks: Map<string, ParkedLook>, destinationId: string): ParkedLook {
  const look = looks.get(destinationId)!;
  if (look.needed) looks.set(destinationId, { ...look, needed: false });
  if (look.orgWaiting.length > 0) {
    for (const [id, other] of looks) if (other.organizationId === look.organizationId) looks.set(id, { ...looks.get(id)!, orgWaiting: [] });
  }
  return look;
}

/** How many of an organization's waiting destinations one look hands on to, at most. */
const ORG_WAITING_PER_LOOK = 10;

/**
 * After a commit: is anything parked at these destinations (or behind their organizations' caps), with a free slot
 * for it? "Anything parked" is one probe of parked_deliveries, which the triggers keep in the transaction that
 * parks or unparks (db/schema/deliveries.ts): asked after every claim and finish, mostly of destinations with
 * nothing parked, and on `deliveries` it probed the parked index of every week's partition. Attempts in flight
 * are summed as the claim sums them (sql/park-early-then-lock.ts).
 */
export async function wakeNeededMany(run: Runner, input: { destinationIds: string[]; caps: SlotCaps }): Promise<Map<string, ParkedLook>> {
  const { destinationConcurrency, orgConcurrency } = input.caps;
  const rows = (await run(sql`
    with e as materialized (
      -- A pull destination's parked deliveries wait for pulls, not for a slot: never handed on.
      select x.id, ep.organization_id, ep.paused or ep.type = 'pull' as paused, look.parked
      from json_array_elements_text(${JSON.stringify(input.destinationIds)}::text::json) x(id)
      -- offset 0: the look runs once per destination, not once per mention of "parked"
      cross join lateral (select exists (select 1 from parked_deliveries pk where pk.destination_id = x.id) as parked offset 0) look
      join destinations ep on ep.id = x.id
    ),
    -- Organizations with destinations waiting for their slots: usually none.
    waiting_orgs as materialized (
      select distinct w.organization_id from org_waiting_destinations w where w.organization_id in (select organization_id from e)
    ),
    -- Summing an organization's slots reads every destination's: once per organization, and only for one
    -- with something parked here or destinations waiting.
    org_free as materialized (
      select o.organization_id
      from (select organization_id from e where e.parked union select organization_id from waiting_orgs) o
      where (select coalesce(sum(s.in_flight), 0) from destinations oe join destination_slots s on s.destination_id = oe.id
        where oe.organization_id = o.organization_id and oe.type <> 'pull') < ${orgConcurrency}::int
    ),
    waiting as materialized (
      select f.organization_id, array(
        select c.destination_id from (
          -- offset 0 keeps the look at parked deliveries to these destinations, not every destination's
          select w.destination_id, w.since from org_waiting_destinations w join destinations we on we.id = w.destination_id
          where w.organization_id = f.organization_id and not we.paused and we.type <> 'pull' offset 0
        ) c
        where (select coalesce(sum(s.in_flight), 0) from destination_slots s where s.destination_id = c.destination_id) < ${destinationConcurrency}::int
          and exists (select 1 from parked_deliveries pk where pk.destination_id = c.destination_id)
        order by c.since limit ${ORG_WAITING_PER_LOOK}) as destination_ids
      from org_free f where f.organization_id in (select organization_id from waiting_orgs)
    )
    select e.id as destination_id, e.organization_id, e.parked,
      case when e.parked
        then not e.paused and (select coalesce(sum(s.in_flight), 0) from destination_slots s where s.destination_id = e.id) < ${destinationConcurrency}::int
          and e.organization_id in (select organization_id from org_free)
        else false end as needed,
      coalesce((select array_remove(w.destination_ids, e.id) from waiting w where w.organization_id = e.organization_id), '{}') as org_waiting
    from e`)) as {
    destination_id: string;
    organization_id: string;
    needed: boolean;
    org_waiting: string[];
  }[];
  const looks = new Map(input.destinationIds.map((id) => [id, NOTHING_TO_HAND_ON]));
  for (const row of rows) {
    looks.set(row.destination_id, { needed: row.needed, orgWaiting: row.org_waiting, organizationId: row.organization_id });
  }
  return looks;
}
