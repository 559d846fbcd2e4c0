// A finish's chains: when an attempt passes its slot on (SlotFate "pass-on"), the finish statement
// (finish-attempt.ts) claims the endpoint's oldest parked delivery for the same job in the same statement.
// The part's common table expressions read the holders (the finish's `holders`: ord, endpoint_id, job_id,
// slot), $2 (the lease margin) and $3 (the least delivery id floor of the chains' organizations, from which on
// they look: lib/storage/delivery-id-floor.ts floorOfEndpoints, not the weeks only another organization keeps),
// and make `pairs` (each attempt whose slot went on: ord, job_id, the delivery's id), which the finish reads to
// free the other slots, and `claimed`, the deliveries taken, joined to the result by ord.
import { fromWeek } from "@/lib/storage/batch-id-range";
import { claimedReturning, claimedState, payloadJoin } from "./claimed-attempt";
import { parkedIdRange } from "./parked-position";

/** The finish statement's chain part: its common table expressions, its result columns, its join. */
export interface ChainParts {
  ctes: string;
  columns: string;
  join: string;
}

const chainsFrom = (from: string) => `
  -- Chains: each endpoint's oldest parked deliveries (none while it is paused), one per attempt
  -- passing its slot on, in the parked index's order (status not named: endpoint-slots.ts
  -- wakeParkedDeliveries says why).
  want as (
    select h.ord, h.endpoint_id, h.job_id, row_number() over (partition by h.endpoint_id order by h.ord) as r
    from holders h where h.slot = 'pass-on'
  ),
  demand as (select want.endpoint_id, count(*)::int as n from want group by 1),
  nxt as (
    select p.id, p.endpoint_id, row_number() over (partition by p.endpoint_id order by p.parked_at, p.id) as r
    from demand cross join lateral (
      select d.id, d.endpoint_id, d.parked_at from deliveries d
      where d.endpoint_id = demand.endpoint_id and d.parked_at is not null and d.id between ${parkedIdRange("demand.endpoint_id")}
        and d.id >= $3::text ${fromWeek("d.id", from)}
        and not exists (select 1 from endpoints e where e.id = demand.endpoint_id and e.paused)
      order by d.parked_at, d.id limit demand.n
      for update skip locked
    ) p
  ),
  pairs as (
    select want.ord, want.job_id, nxt.id from want join nxt on nxt.endpoint_id = want.endpoint_id and nxt.r = want.r
  ),
  ep as (
    select e.id, e.destination_url, e.timeout_ms, e.max_attempts, e.retry_base_seconds, e.outbound_secret_encrypted
    from endpoints e where e.id in (select endpoint_id from demand)
  ),
  claimed as (
    update deliveries d set ${claimedState("pairs.job_id", "$2::float8")}
    from pairs, ep
    where d.id = pairs.id and ep.id = d.endpoint_id and d.id >= $3::text ${fromWeek("d.id", from)}
    -- A chain's job is no replay's: its next delivery is a replay's attempt only if it says so itself.
    returning pairs.ord, ${claimedReturning("false")},
      ep.destination_url, ep.timeout_ms, ep.max_attempts, ep.retry_base_seconds, ep.outbound_secret_encrypted
  ),
`;

// Without chains, no pairs; $2 and $3 (the lease margin and the floor, which only chains read) are typed
// here, as PostgreSQL must type every parameter of a statement.
const NO_CHAINS = `pairs as (select null::int as ord, $2::float8 as lease_margin_seconds, $3::text as floor where false),`;

// What a chain claimed, as a claim statement's row (claimResult).
const CHAINED_COLUMNS = `case when c.id is null then null else 'claim' end as verdict, false as took_over, c.id as delivery_id,
    c.organization_id, c.attempt_count, c.auto_attempt_count, c.trigger, c.started_at, p.headers, p.body,
    c.destination_url, c.timeout_ms, c.max_attempts, c.retry_base_seconds, c.outbound_secret_encrypted`;

/**
 * The chain part for a finish some of whose attempts pass their slot on, `from` the start of $3's week (fromWeek);
 * for one where none does (null), the part that claims nothing.
 */
export function chainParts(from: string | null): ChainParts {
  if (from === null) return { ctes: NO_CHAINS, columns: "null as verdict, null as delivery_id", join: "" };
  return {
    ctes: chainsFrom(from),
    columns: CHAINED_COLUMNS,
    join: `left join claimed c on c.ord = i.ord ${payloadJoin("c", `and p.delivery_id >= $3::text ${fromWeek("p.delivery_id", from)}`)}`,
  };
}
