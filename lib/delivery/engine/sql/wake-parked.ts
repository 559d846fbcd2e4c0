// WAKE_PARKED: unparks an destination's oldest parked deliveries, as many as it and its organization have free
// slots (none while it is paused), and enqueues their jobs in the same statement (so a pipelined transaction
// needs no second round trip). Run by destination-slots.ts wakeParkedDeliveries, with the destination's slot lock
// held: after a claim or finish whose look saw a free slot (hand-on-slots.ts), a resume, the rescue sweep.
// Written as drizzle `sql`, as it runs both in a drizzle transaction (a resume) and on a raw connection.
import { sql, type SQL } from "drizzle-orm";
import { addJobsSql, deliverJobSpecSql } from "@/lib/queue/enqueue";
import { fromWeek, weekStartOf } from "@/lib/storage/batch-id-range";
import type { SlotCaps } from "../settings";
import { rateTokensNow } from "./rate-tokens";

/**
 * `floor`: the destination's organization's delivery id floor, or one below (lib/storage/delivery-id-floor.ts), so
 * the pick reads the weeks from there on only; its week is written in the text (batch-id-range.ts fromWeek).
 * Returns one row: the woken deliveries' `ids`, and how many jobs were `enqueued`.
 */
export const WAKE_PARKED = (input: { destinationId: string; caps: SlotCaps; floor: string }): SQL => {
  const from = weekStartOf(input.floor);
  // add_jobs NOTIFYs, so it runs only when something was woken.
  return sql`
    with target as (select ${input.destinationId}::text as id),
    pick as (
      select d.id from deliveries d
      -- In the parked index's order (destination, parked_at, id), so the planner has no other index to
      -- walk. Parked implies pending (parking sets it; a claim, replay or bury clears parked_at), so
      -- status is not named: that would offer it the open-deliveries index, every pending row of the destination.
      -- Between the least and greatest id parked at the destination (two probes of parked_deliveries' primary key,
      -- kept in the transaction that parks or unparks, so it holds exactly the deliveries parked at any
      -- snapshot; null when none is): PostgreSQL reads the parked index of the weeks between, pruned as the
      -- statement runs, not of every week kept (a wake at 55 partitions probed 55 indexes). The destination as a
      -- subquery, computed once, as the statement starts.
      where d.destination_id = ${input.destinationId} and d.parked_at is not null
        and d.id between (select min(pk.delivery_id) from parked_deliveries pk where pk.destination_id = (select id from target))
          and (select max(pk.delivery_id) from parked_deliveries pk where pk.destination_id = (select id from target))
        and d.id >= ${input.floor}::text ${sql.raw(fromWeek("d.id", from))}
        -- A pull destination's parked deliveries wait for pulls (lib/delivery/engine/lease-deliveries.ts), never a job.
        and not exists (select 1 from destinations e where e.id = ${input.destinationId} and (e.paused or e.type = 'pull'))
        -- Not one an earlier delivery of its ordering value still holds back: woken, it would only park again
        -- (and its look wake it again); it is woken once that one settles.
        and not (d.ordering_value is not null and exists (select 1 from open_ordered_deliveries o where o.destination_id = d.destination_id
          and o.ordering_value = d.ordering_value and o.delivery_id < d.id))
      order by d.parked_at, d.id
      -- As many as the destination and its organization both have free slots for: their attempts in flight, the
      -- organization's summed through its destinations (see sql/park-early-then-lock.ts); for a rate-limited
      -- destination, no more than its bucket holds whole tokens now (the claims take them: sql/claim.ts).
      limit coalesce((
        select case when exists (select 1 from parked_deliveries pk where pk.destination_id = ${input.destinationId})
          then greatest(0, least(
            ${input.caps.destinationConcurrency}::int
              - (select coalesce(sum(s.in_flight), 0) from destination_slots s where s.destination_id = e0.id)::int,
            ${input.caps.orgConcurrency}::int
              - (select coalesce(sum(s.in_flight), 0) from destinations oe join destination_slots s on s.destination_id = oe.id
                  where oe.organization_id = e0.organization_id and oe.type <> 'pull')::int,
            case when e0.rate_per_second is null then 2147483647 else floor(${sql.raw(rateTokensNow("e0"))})::int end))
          else 0 end
        from destinations e0 where e0.id = ${input.destinationId}
      ), 0)
      for update skip locked
    ),
    woken as (
      update deliveries d set parked_at = null, updated_at = now()
      from pick where d.id = pick.id and d.id >= ${input.floor}::text ${sql.raw(fromWeek("d.id", from))}
      -- A replayed delivery parked before its replay attempt keeps its place in the replay lane.
      returning d.id, d.destination_id, case when d.auto_attempt_count = 0 and d.attempt_count > 0 then 'replay' else 'auto' end as trigger
    )
    select coalesce((select array_agg(id) from woken), '{}') as ids,
      (select count(*) from (
        -- Unkeyed (see deliverJobSpec): a parked delivery's old job may still be completing.
        select ${sql.raw(addJobsSql(`select ${deliverJobSpecSql({ deliveryId: "w.id", destinationId: "w.destination_id", trigger: "w.trigger", keyed: false })} from woken w`))}
        where exists (select 1 from woken)
      ) added)::int as enqueued`;
};
