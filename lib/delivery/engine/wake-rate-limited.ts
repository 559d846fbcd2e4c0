// A rate-limited destination's parked deliveries, woken as its tokens come: a claim refused for want of a token
// parks its delivery (sql/claim.ts) and asks for this wake at the time the next token is due; the wake unparks as
// many as the bucket holds whole tokens (sql/wake-parked.ts), and, while some stay parked, asks again for when
// the token after those is due. What waits is parked: no job, no claim, nothing read until then.
import type postgres from "postgres";
import { getSql } from "@/db";
import { enqueueRaw } from "@/lib/queue/enqueue";
import { jobSpec } from "@/lib/queue/job-registry";
import { processSingleton } from "@/lib/runtime/process-singleton";
import { floorOfDestinations } from "@/lib/storage/delivery-id-floor";
import { lockDestinationSlots, rawRunner, wakeParkedDeliveries } from "./destination-slots";
import { deliverySettings } from "./settings";
import { rateTokensNow } from "./sql/rate-tokens";

/**
 * Seconds (database clock) until the bucket of `destinationId` holds `after + 1` whole tokens, when it is rate-limited,
 * active and has something parked; null otherwise (nothing to wake later).
 */
async function secondsUntilToken(sql: postgres.Sql | postgres.TransactionSql, destinationId: string, after: number): Promise<number | null> {
  const [row] = await sql.unsafe<{ wait: number | null }[]>(`
    select greatest(0, ($1::int + 1 - ${rateTokensNow("e")}) / e.rate_per_second)::float8 as wait
    from destinations e
    where e.id = $2 and e.rate_per_second is not null and not e.paused and e.deleted_at is null
      and exists (select 1 from parked_deliveries pk where pk.destination_id = e.id)`, [after, destinationId]);
  return row?.wait ?? null;
}

/**
 * graphile-worker finds a job due later by polling (every 2 s), a job due now at once (it is notified): a token
 * due within this long is waited for inside the wake's run, so a limit of several a second keeps its pace.
 */
const WAIT_IN_RUN_MS = 2_500;

/** Asks for a wake of `destinationId` when its next whole token (after `after` taken) is due; one waiting wake per destination. */
export async function scheduleRateWake(destinationId: string, { sql = getSql(), after = 0 }: { sql?: postgres.Sql | postgres.TransactionSql; after?: number } = {}): Promise<void> {
  const wait = await secondsUntilToken(sql, destinationId, after);
  if (wait === null) return;
  // A duration from the database's clock, added to ours: a wake a little early finds no token and asks again.
  const dueAt = Date.now() + Math.ceil(wait * 1000);
  const runAt = dueAt - Date.now() > WAIT_IN_RUN_MS ? new Date(dueAt - WAIT_IN_RUN_MS) : undefined;
  await enqueueRaw(sql, [jobSpec("wake-rate-limited", { destinationId, dueAt }, { runAt })]);
}

/**
 * Wakes waiting in a run hold one of the worker's job slots while they wait: a process lets this many wait at
 * once, so one organization's many rate-limited destinations cannot fill the slots every organization's
 * deliveries share. Past it, a wake is queued for its time again and found by the poll (up to 2 s late).
 */
const WAITING_IN_RUN_PER_PROCESS = 4;
const waitingInRun = processSingleton("rate-limit wakes waiting in their run", () => ({ n: 0 }));

/** The wake itself (jobs/wake-rate-limited.ts), run at or before `dueAt` (ms): returns how many it woke. */
export async function wakeRateLimited({ destinationId, dueAt }: { destinationId: string; dueAt?: number }): Promise<number> {
  const wait = Math.min(WAIT_IN_RUN_MS, Math.max(0, (dueAt ?? 0) - Date.now()));
  if (wait > 0 && waitingInRun.n >= WAITING_IN_RUN_PER_PROCESS) {
    await enqueueRaw(getSql(), [jobSpec("wake-rate-limited", { destinationId, dueAt }, { runAt: new Date(dueAt!) })]);
    return 0;
  }
  if (wait > 0) {
    waitingInRun.n++;
    try {
      await new Promise((resolve) => setTimeout(resolve, wait));
    } finally {
      waitingInRun.n--;
    }
  }
  const sql = getSql();
  const caps = deliverySettings();
  const floor = await floorOfDestinations(sql, [destinationId]);
  const woken = await sql.begin(async (tx) => {
    const run = rawRunner(tx);
    await lockDestinationSlots(run, destinationId);
    return wakeParkedDeliveries(run, { destinationId, caps, floor });
  });
  await scheduleRateWake(destinationId, { sql, after: woken.length });
  return woken.length;
}
