// Brings an endpoint's parked deliveries and its free slots together, under the slot lock: the
// caller's job may take the oldest parked delivery itself (a chain: no job to add, fetch and run),
// and the other free slots wake parked deliveries as jobs of their own.
import type postgres from "postgres";
import { claimResult, claimStatement, type ClaimResult, type ClaimRow } from "./claim-delivery";
import { lockEndpointSlots, lockOrgSlotsOfEndpoint, rawRunner, wakeParkedDeliveries } from "./endpoint-slots";
import { pipelinedTransaction } from "./pipelined-transaction";
import type { DeliverySettings } from "./settings";

export async function handOnSlots(
  sql: postgres.Sql,
  input: { endpointId: string; jobId: string; chainNext: boolean; settings: DeliverySettings },
): Promise<{ next: ClaimResult | null; woken: string[] }> {
  const { endpointId, jobId, settings } = input;
  const { results } = await pipelinedTransaction<[unknown, void, void, ClaimRow[] | null, string[]]>(sql, (tx) => {
    const run = rawRunner(tx);
    return [
      tx`set local synchronous_commit = off`.execute(), // see DURABILITY in endpoint-slots.ts
      // A chain's claim takes a new slot, so it holds the organization's lock first (endpoint-slots.ts).
      input.chainNext ? lockOrgSlotsOfEndpoint(run, endpointId) : Promise.resolve(),
      lockEndpointSlots(run, endpointId),
      input.chainNext
        ? claimStatement(tx, { target: { nextParked: true }, endpointId, jobId, trigger: "auto", settings }).execute()
        : Promise.resolve(null),
      wakeParkedDeliveries(run, { endpointId, caps: settings }),
    ];
  });
  const [, , , chained, woken] = results;
  return { next: chained ? claimResult(chained, endpointId) : null, woken };
}
