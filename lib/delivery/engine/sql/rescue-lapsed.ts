// RESCUE_LAPSED, the rescue sweep's (rescue-deliveries.ts): a claim whose lease ran out long ago has lost its
// job (it failed for good, or was deleted): its attempt is recorded interrupted (unless its finish recorded
// it), its slot given back, and the delivery is pending again; the sweep then adds its job in the same
// transaction. Claims held by another transaction are left to the next sweep (skip locked).
import type postgres from "postgres";
import { SHARD_MASK } from "../destination-slots";

/** `graceSeconds`: how long past its lease a claim is left to its own job's re-run. Returns the deliveries made pending. */
export const RESCUE_LAPSED = (tx: postgres.TransactionSql, input: { graceSeconds: number }) => tx<{ id: string; destination_id: string; endpoint_id: string }[]>`
  with lost as (
    select id, destination_id, organization_id, attempt_count, updated_at, claimed_by_job from deliveries
    where status = 'delivering' and lease_expires_at < now() - make_interval(secs => ${input.graceSeconds})
    for update skip locked
  ),
  interrupted as (
    insert into attempts (organization_id, delivery_id, number, trigger, started_at, error)
    select organization_id, id, attempt_count, 'auto', updated_at, 'interrupted: the attempt was lost (its job ended without an outcome)'
    from lost
    on conflict (delivery_id, number) do nothing
  ),
  released as (
    update destination_slots s set in_flight = greatest(0, s.in_flight - lost_here.n)
    from (
      select destination_id, (hashtext(claimed_by_job) & ${SHARD_MASK})::smallint as shard, count(*)::int as n
      from lost group by 1, 2
    ) lost_here
    where s.destination_id = lost_here.destination_id and s.shard = lost_here.shard
  )
  update deliveries d set status = 'pending', claimed_by_job = null, lease_expires_at = null, updated_at = now()
  from lost where d.id = lost.id
  returning d.id, d.destination_id, d.endpoint_id`;
