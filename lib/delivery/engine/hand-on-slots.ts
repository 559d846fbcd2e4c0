// Brings an destination's parked deliveries and its free slots together, under the slot lock: the
// caller's job may take the oldest parked delivery itself (a chain: no job to add, fetch and run),
// and the other free slots wake parked deliveries as jobs of their own. Called after a claim or a
// finish has committed, when its look (destination-slots.ts) saw both.
import type postgres from "postgres";
import { floorOfDestinations } from "@/lib/storage/delivery-id-floor";
import { claimResults, claimStatements } from "./claim-delivery";
import type { ClaimResult, ClaimRow } from "./claimed-attempt";
import { lockDestinationSlots, rawRunner, wakeParkedDeliveries, type ParkedLook } from "./destination-slots";
import { pipelinedTransaction } from "./pipelined-transaction";
import type { DeliverySettings } from "./settings";

export interface HandOn {
  destinationId: string;
  /** The job that takes the oldest parked delivery itself, with a slot of its own; none: all are woken as jobs. */
  takeFor?: string;
  settings: DeliverySettings;
}

export async function handOnSlots(sql: postgres.Sql, input: HandOn): Promise<{ next: ClaimResult | null; woken: string[] }> {
  const { destinationId, takeFor, settings } = input;
  const take = takeFor ? [{ deliveryId: null, destinationId, jobId: takeFor, trigger: "auto" as const }] : [];
  // Both pick the oldest parked deliveries, from the organization's floor on (sql/claim.ts, sql/wake-parked.ts).
  const floor = await floorOfDestinations(sql, [destinationId]);
  const { results } = await pipelinedTransaction<[unknown, unknown, (ClaimRow & { ord: number })[] | null, string[]]>(sql, (tx) => {
    // Each statement is sent as it is made, so in this order (pipelined-transaction.ts).
    const run = rawRunner(tx);
    const durability = tx`set local synchronous_commit = off`.execute(); // see DURABILITY in destination-slots.ts
    // A claim takes the organization's lock, then the destination's (destination-slots.ts); waking needs the destination's.
    const [locked, claimed] = take.length > 0 ? claimStatements(tx, take, settings, { kind: "from", floor }) : [lockDestinationSlots(run, destinationId), Promise.resolve(null)];
    return [durability, locked, claimed, wakeParkedDeliveries(run, { destinationId, caps: settings, floor })];
  });
  const [, , claimed, woken] = results;
  return { next: claimed ? claimResults(take, [], claimed)[0]! : null, woken };
}

/**
 * Follows a look taken after a commit: hands slots on at the destination when it saw parked deliveries
 * beside a free slot (`takeFor` taking one itself), and at the organization's destinations waiting for
 * an organization slot.
 */
export async function handOnLooked(sql: postgres.Sql, input: HandOn & { look: ParkedLook }): Promise<{ next: ClaimResult | null; woken: number }> {
  const { look, settings } = input;
  const here = look.needed ? await handOnSlots(sql, input) : { next: null, woken: [] };
  let woken = here.woken.length;
  for (const destinationId of look.orgWaiting) woken += (await handOnSlots(sql, { destinationId, settings })).woken.length;
  return { next: here.next, woken };
}
