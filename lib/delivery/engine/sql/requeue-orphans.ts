// REQUEUE_ORPHANS, the rescue sweep's (rescue-deliveries.ts requeueOrphans, which walks each destination's open
// deliveries for the candidates): a pending delivery, not parked, due a while ago, with no job graphile-worker
// would still run (it spent the job's own attempts through hours of database trouble, or the job was removed),
// is touched (so the next sweep's grace counts from now) and returned; the sweep adds its job in the same
// transaction. One held by another transaction is left to the next sweep (skip locked).
import type postgres from "postgres";
import { hasRunnableJobSql } from "@/lib/queue/queue-tables";

/** `ids`: the walk's candidates; `graceSeconds`: how long past its due time a delivery waits before it is looked at. */
export const REQUEUE_ORPHANS = (tx: postgres.TransactionSql, input: { ids: string[]; graceSeconds: number }) => tx<{ id: string; destination_id: string; endpoint_id: string }[]>`
  with orphan as (
    select d.id from deliveries d
    where d.id = any(${input.ids}::text[])
      and d.status = 'pending' and d.parked_at is null
      and coalesce(d.next_attempt_at, d.updated_at) < now() - make_interval(secs => ${input.graceSeconds})
      -- Read once, by payload: a re-queued job carries no key (the walk already asked the key index).
      and not ${tx.unsafe(hasRunnableJobSql("d.id"))}
    for update of d skip locked
  )
  update deliveries d set updated_at = now() from orphan where d.id = orphan.id
  returning d.id, d.destination_id, d.endpoint_id`;
