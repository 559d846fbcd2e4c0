// The first half of an attempt: a job's claim of its delivery. Claims made at the same time by a
// worker's jobs go together (micro-batcher.ts; a lone claim is a batch of one), in one short pipelined
// transaction of two statements: PARK_EARLY_THEN_LOCK (sql/park-early-then-lock.ts) parks those whose
// destination is paused or looks full and takes the slot locks of the others' organizations and destinations, then
// CLAIM (sql/claim.ts) decides every claim. A claimed delivery is `delivering`, with a lease in the job's
// name; its attempts row is written when the attempt ends. After the commit, one look per destination for
// parked deliveries and free slots (destination-slots.ts: no lost wake-up).
import type postgres from "postgres";
import { getSql } from "@/db";
import type { DeliverTrigger } from "@/lib/queue/enqueue";
import { batchIdBounds, idBoundsParams, splitOlder, type IdBounds } from "@/lib/storage/batch-id-range";
import { floorOfDestinations } from "@/lib/storage/delivery-id-floor";
import { claimResult, type ClaimResult, type ClaimRow } from "./claimed-attempt";
import { NOTHING_TO_HAND_ON, ORG_SLOT_LOCK_NAMESPACE, rawRunner, SLOT_LOCK_NAMESPACE, takeLook, wakeNeededMany, type ParkedLook } from "./destination-slots";
import { MicroBatcher, sharedBatcher } from "./micro-batcher";
import { pipelinedTransaction } from "./pipelined-transaction";
import type { DeliverySettings } from "./settings";
import { CLAIM } from "./sql/claim";
import { PARK_EARLY_THEN_LOCK } from "./sql/park-early-then-lock";

export interface Claim {
  /** Null: the destination's oldest parked delivery. */
  deliveryId: string | null;
  destinationId: string;
  /** The job's id, or a pull's lease id. */
  jobId: string;
  trigger: DeliverTrigger;
  /** A pull's lease (lease-deliveries.ts): how long it lasts, in place of the destination's timeout and margin. */
  leaseSeconds?: number;
}

export type EarlyRow = { delivery_id: string | null; why: "paused" | "pull" | "saturated" | null };

const INTERRUPTED = "interrupted: the worker stopped during this attempt, so its outcome is unknown";

/** Which weeks the claims' statements read (batchIdBounds): asked before their transaction. */
export function claimIdBounds(sql: postgres.Sql, claims: Claim[]): Promise<IdBounds> {
  return batchIdBounds(claims.map((c) => c.deliveryId), () => floorOfDestinations(sql, [...new Set(claims.map((c) => c.destinationId))]));
}

/**
 * The claim's two statements, for a pipelined transaction: park early and take the locks, then
 * claim. Claims of the same delivery must not share them. Also a chain's claim after a hand-on (hand-on-slots.ts).
 */
export function claimStatements(
  tx: postgres.ReservedSql,
  claims: Claim[],
  settings: DeliverySettings,
  bounds: IdBounds,
): [Promise<EarlyRow[]>, Promise<(ClaimRow & { ord: number })[]>] {
  const rows = claims.map((c, ord) => ({ ord, delivery_id: c.deliveryId, destination_id: c.destinationId, job_id: c.jobId, trigger: c.trigger, lease_seconds: c.leaseSeconds ?? null }));
  return [
    tx.unsafe<EarlyRow[]>(
      PARK_EARLY_THEN_LOCK(bounds),
      [JSON.stringify(rows), settings.destinationConcurrency, SLOT_LOCK_NAMESPACE, settings.orgConcurrency, ORG_SLOT_LOCK_NAMESPACE, ...idBoundsParams(bounds)],
      { prepare: true },
    ).execute(),
    tx.unsafe<(ClaimRow & { ord: number })[]>(
      CLAIM(bounds),
      [JSON.stringify(rows), settings.destinationConcurrency, settings.leaseMarginMs / 1000, settings.orgConcurrency, INTERRUPTED, ...idBoundsParams(bounds)],
      { prepare: true },
    ).execute(),
  ];
}

/** The claims' results from claimStatements' rows, in order. */
export function claimResults(claims: Claim[], early: EarlyRow[], decided: (ClaimRow & { ord: number })[]): ClaimResult[] {
  const parkedEarly = new Map(early.filter((row) => row.delivery_id !== null).map((row) => [row.delivery_id!, row.why ?? "saturated"]));
  const byOrd = new Map(decided.map((row) => [row.ord, row]));
  return claims.map((claim, ord) => {
    const why = claim.deliveryId === null ? undefined : parkedEarly.get(claim.deliveryId);
    return why !== undefined ? { verdict: why } : claimResult(byOrd.get(ord), claim.destinationId);
  });
}

/**
 * A claim's result, its delivery's destination (null when the delivery is gone), and what the look
 * after the commit saw there (told to the first claim of an destination in a batch only).
 */
export type Claimed = ClaimResult & { destinationId: string | null; look: ParkedLook };

/** A batch of claims (claimDelivery's micro-batcher hands them here), each with its result, in order. */
export async function claimDeliveries(sql: postgres.Sql, claims: Claim[], settings: DeliverySettings): Promise<Claimed[]> {
  // One claim per delivery in a statement: a second job for the same delivery goes in the next one,
  // and finds it claimed.
  const seen = new Set<string | null>();
  const distinct = claims.filter((c) => !seen.has(c.deliveryId) && seen.add(c.deliveryId));
  const later = claims.filter((c) => !distinct.includes(c));
  // Claims of deliveries weeks older than the rest (replays) in a statement of their own, at the same time:
  // it reads back to their weeks, the others' does not (splitOlder).
  const { recent, older } = splitOlder(distinct, (c) => c.deliveryId);
  const [claimedRecent, claimedOlder] = await Promise.all([claimTogether(sql, recent, settings), older.length > 0 ? claimDeliveries(sql, older, settings) : []]);
  const byClaim = new Map<Claim, Claimed>([...recent.map((c, i) => [c, claimedRecent[i]!] as const), ...older.map((c, i) => [c, claimedOlder[i]!] as const)]);
  if (later.length > 0) (await claimDeliveries(sql, later, settings)).forEach((claimed, i) => byClaim.set(later[i]!, claimed));
  return claims.map((claim) => byClaim.get(claim)!);
}

/** Claims of distinct deliveries in one transaction: the claim's statements, then the look after the commit. */
async function claimTogether(sql: postgres.Sql, claims: Claim[], settings: DeliverySettings): Promise<Claimed[]> {
  const destinationIds = [...new Set(claims.map((c) => c.destinationId))];
  const idBounds = await claimIdBounds(sql, claims);
  const { results, after } = await pipelinedTransaction<[unknown, EarlyRow[], (ClaimRow & { ord: number })[]], [Map<string, ParkedLook>]>(
    sql,
    (tx) => [
      tx`set local synchronous_commit = off`.execute(), // see DURABILITY in destination-slots.ts
      ...claimStatements(tx, claims, settings, idBounds),
    ],
    // A claim that parks looks again after its commit: a slot may have freed meanwhile (destination-slots.ts).
    (tx) => [wakeNeededMany(rawRunner(tx), { destinationIds, caps: settings })],
  );
  const [looks] = after;
  return claimResults(claims, results[1], results[2]).map((result, i) => {
    const { destinationId } = claims[i]!;
    return { ...result, destinationId, look: takeLook(looks, destinationId) };
  });
}

/**
 * Claims the delivery for this job, batched with the worker's other claims. The caller brings
 * together a parked delivery and a free slot that the look after the commit saw (hand-on-slots.ts).
 */
export async function claimDelivery(input: {
  deliveryId: string;
  /** Known from the job's payload; looked up when missing (jobs enqueued before it was added). */
  destinationId?: string;
  jobId: string;
  trigger: DeliverTrigger;
  settings: DeliverySettings;
}): Promise<Claimed> {
  const sql = getSql();
  const { deliveryId, jobId, trigger, settings } = input;
  let destinationId = input.destinationId;
  if (!destinationId) {
    const [row] = await sql<{ destination_id: string }[]>`select destination_id from deliveries where id = ${deliveryId}`;
    if (!row) return { verdict: "missing", destinationId: null, look: NOTHING_TO_HAND_ON };
    destinationId = row.destination_id;
  }
  const batcher = sharedBatcher(sql, `claim/${settings.destinationConcurrency}/${settings.orgConcurrency}/${settings.leaseMarginMs}`, () =>
    new MicroBatcher((claims: Claim[]) => claimDeliveries(sql, claims, settings), { maxBatch: 100, maxConcurrent: 1 }));
  return batcher.submit({ deliveryId, destinationId, jobId, trigger });
}

/**
 * The oldest delivery at this destination still claimed by this job, which an earlier run of it began
 * (or reached by a chain) before its worker died: taken over (its lost attempt recorded
 * interrupted), or "missing" when there is none.
 */
export async function claimLeftByJob(input: { destinationId: string; jobId: string; settings: DeliverySettings }): Promise<Claimed> {
  const [row] = await getSql()<{ id: string }[]>`
    select id from deliveries
    where destination_id = ${input.destinationId} and status = 'delivering' and claimed_by_job = ${input.jobId}
    order by received_at, id limit 1`;
  if (!row) return { verdict: "missing", destinationId: null, look: NOTHING_TO_HAND_ON };
  return claimDelivery({ deliveryId: row.id, destinationId: input.destinationId, jobId: input.jobId, trigger: "auto", settings: input.settings });
}
