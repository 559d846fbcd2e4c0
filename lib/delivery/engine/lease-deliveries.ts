// A pull's leases (API.md "Pull destinations"): a pull destination's deliveries wait parked (ingest stores them so, and
// a job that finds one parks it: sql/claim.ts verdict `pull`), and a pull claims the oldest ready ones with CLAIM, as a
// job claims, under the same rules (pause, rate limit, ordering, slots), each in the name of a new lease id instead of
// a job and for the lease's own time. A lease is an attempt: `delivering`, counted, holding a slot of its destination
// (not of its organization's cap, which keeps worker slots shared: a lease holds none); its attempts row
// is written when it is acknowledged, nacked or runs out (settle-leases.ts). A pull takes its organization's and its
// destination's slot locks (in that order, as every claim) before it picks, so two pulls never pick the same delivery
// and each sees the other's leases.
import type postgres from "postgres";
import { newId } from "@/lib/ids";
import { enqueueRaw } from "@/lib/queue/enqueue";
import { jobSpec } from "@/lib/queue/job-registry";
import { batchIdBounds } from "@/lib/storage/batch-id-range";
import { floorOfDestinations } from "@/lib/storage/delivery-id-floor";
import { claimResults, claimStatements, type Claim } from "./claim-delivery";
import type { ClaimedAttempt, ClaimRow } from "./claimed-attempt";
import { lockDestinationSlots, lockOrgSlotsOfDestination, rawRunner } from "./destination-slots";
import type { DeliverySettings } from "./settings";

/** A lease claim's organization cap: none (the organizations' sums leave leases out: sql/claim.ts org_busy). */
const NO_ORGANIZATION_CAP = 2_147_483_647;

export interface Lease {
  leaseId: string;
  attempt: ClaimedAttempt;
  receivedAt: Date;
  eventType: string | null;
  externalId: string;
}

export interface Leased {
  /** Oldest first, in the destination's line. */
  leases: Lease[];
  /** Some were ready but the destination's rate limit had no token for them now. */
  rateLimited: boolean;
}

/**
 * Leases up to `max` of the pull destination's ready deliveries for `leaseSeconds`, and queues the job that ends
 * them if they are not settled by then (jobs/expire-leases.ts). `leaseCap`: leases the destination may hold at once,
 * its cap in place of the push engine's per destination.
 */
export async function leaseDeliveries(
  sql: postgres.Sql,
  input: { destinationId: string; max: number; leaseSeconds: number; leaseCap: number; settings: DeliverySettings },
): Promise<Leased> {
  const { destinationId, max, leaseSeconds } = input;
  const floor = await floorOfDestinations(sql, [destinationId]);
  const tx = await sql.reserve();
  try {
    await tx`begin`;
    const run = rawRunner(tx);
    await lockOrgSlotsOfDestination(run, destinationId);
    await lockDestinationSlots(run, destinationId);
    // Read with the locks held, so after any other pull's leases committed. Parked, oldest first in the parked
    // index's order (as sql/wake-parked.ts picks), from the organization's floor on; not one an earlier delivery of
    // its ordering value still holds back (the claim would refuse it, and it would take the place of a ready one).
    const ready = await tx<{ id: string }[]>`
      select d.id from deliveries d
      where d.destination_id = ${destinationId} and d.parked_at is not null
        and d.id between (select min(pk.delivery_id) from parked_deliveries pk where pk.destination_id = ${destinationId})
          and (select max(pk.delivery_id) from parked_deliveries pk where pk.destination_id = ${destinationId})
        and d.id >= ${floor}
        and not (d.ordering_value is not null and exists (select 1 from open_ordered_deliveries o where o.destination_id = d.destination_id
          and o.ordering_value = d.ordering_value and o.delivery_id < d.id))
      order by d.parked_at, d.id
      limit ${max}`;
    if (ready.length === 0) {
      await tx`commit`;
      return { leases: [], rateLimited: false };
    }
    const claims: Claim[] = ready.map((row) => ({ deliveryId: row.id, destinationId, jobId: newId("lse"), trigger: "auto", leaseSeconds }));
    const bounds = await batchIdBounds(claims.map((claim) => claim.deliveryId), async () => floor);
    const [early, decided] = claimStatements(tx, claims, { ...input.settings, destinationConcurrency: input.leaseCap, orgConcurrency: NO_ORGANIZATION_CAP }, bounds);
    const rows = await decided;
    const results = claimResults(claims, await early, rows);
    const byOrd = new Map<number, ClaimRow>(rows.map((row) => [row.ord, row]));
    const leases: Lease[] = [];
    results.forEach((result, ord) => {
      if (result.verdict !== "claimed") return;
      const row = byOrd.get(ord)!;
      leases.push({ leaseId: claims[ord]!.jobId, attempt: result.attempt, receivedAt: row.received_at!, eventType: row.event_type ?? null, externalId: row.external_id! });
    });
    if (leases.length > 0) {
      // The leases end at this transaction's now() and their length (CLAIM's clock); the job runs just after.
      const [end] = await tx<{ at: Date }[]>`select now() + make_interval(secs => ${leaseSeconds + 0.1}) as at`;
      await enqueueRaw(tx as unknown as postgres.Sql, [jobSpec("expire-leases", { destinationId }, { runAt: end!.at })]);
    }
    await tx`commit`;
    return { leases, rateLimited: results.some((result) => result.verdict === "rate_limited") };
  } catch (error) {
    await tx`rollback`.catch(() => {});
    throw error;
  } finally {
    tx.release();
  }
}
