// The daily digest's figures for one organization over the 24 hours up to `now`, read as the overview reads
// them (lib/endpoints/get-overview.ts): the counts from the per-minute counters the roll-up keeps 25 h and the
// events it has not folded yet, never by counting deliveries, so they equal the dashboard's "last 24 hours" (the
// 1,440 minutes up to now's; every figure about the deliveries received in them, as they stand now), per destination
// (the counters name it, migration 0041) and summed per endpoint; each destination's oldest pending age is the first
// entry of deliveries_destination_waiting_idx; its top errors come from bounded walks of two partial indexes.
import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";

/** The mail lists this many endpoints, the busiest first; the rest are counted. */
export const DIGEST_MAX_ENDPOINTS = 50;
/** Per endpoint: how many of its oldest waiting deliveries, and of its latest dead ones, are read for its errors. */
export const DIGEST_WALK = 1_000;
export const DIGEST_TOP_ERRORS = 3;
/** An error text is grouped by its first characters, whitespace folded. */
const ERROR_CHARS = 200;
const WHITESPACE = String.raw`\s+`;

export interface DigestError {
  error: string;
  /** Deliveries (dead in the window, or waiting now) whose last attempt failed with it. */
  count: number;
}

export interface DigestDestination {
  id: string;
  name: string;
  received: number;
  delivered: number;
  dead: number;
  /** Age of its oldest pending or delivering delivery; 0 when none. */
  oldestPendingAgeSeconds: number;
  topErrors: DigestError[];
}

export interface DigestEndpoint {
  id: string;
  name: string;
  received: number;
  delivered: number;
  dead: number;
  filtered: number;
  oldestPendingAgeSeconds: number;
  destinations: DigestDestination[];
}

export interface DigestFigures {
  from: Date;
  to: Date;
  endpoints: DigestEndpoint[];
  /** Endpoints past DIGEST_MAX_ENDPOINTS, left out of the mail. */
  omittedEndpoints: number;
}

type CountRow = { id: string; endpointId: string; endpointName: string; name: string; live: boolean; received: string; open: string; dead: string; filtered: string; oldest: string };
type ErrorRow = { endpointId: string; destinationId: string; error: string; count: string };

export async function gatherDigestFigures({ ctx, input }: { ctx: Ctx; input: { now: Date } }): Promise<DigestFigures> {
  const now = input.now.toISOString();
  const nowMinute = new Date(Math.floor(input.now.getTime() / 60_000) * 60_000).toISOString();
  const firstMinute = new Date(Date.parse(nowMinute) - (24 * 60 - 1) * 60_000).toISOString();
  const from = new Date(input.now.getTime() - 24 * 3_600_000);
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  const receiptCounts = sql.raw(`'received', 'filtered', 'open_by_receipt', 'dead_by_receipt'`);
  // The overview's second statement, per destination and summed over the whole window instead of by hour, and each
  // destination's oldest pending age. Deleted destinations count in their endpoint's sums (their deliveries stay).
  const rows = await ctx.db.execute<CountRow>(sql`
    select dst.id, dst.endpoint_id as "endpointId", e.name as "endpointName", dst.name, dst.deleted_at is null as live,
      coalesce(sum(c.count) filter (where c.event = 'received'), 0) as "received",
      coalesce(sum(c.count) filter (where c.event = 'open_by_receipt'), 0) as "open",
      coalesce(sum(c.count) filter (where c.event = 'dead_by_receipt'), 0) as "dead",
      coalesce(sum(c.count) filter (where c.event = 'filtered'), 0) as "filtered",
      coalesce(greatest(0, floor(extract(epoch from ${now}::timestamptz - (
        select min(d.pending_since) from deliveries d where d.destination_id = dst.id and d.id >= ${idFloor} and d.status in ('pending', 'delivering'))))), 0) as "oldest"
    from destinations dst join endpoints e on e.id = dst.endpoint_id left join lateral (
      select c.event, c.count from delivery_counts_by_minute c
      where c.destination_id = dst.id and c.event in (${receiptCounts}) and c.minute >= ${firstMinute}::timestamptz and c.minute <= ${nowMinute}::timestamptz
      union all
      select v.event, v.count from delivery_counter_events v
      where v.endpoint_id = dst.endpoint_id and v.destination_id = dst.id and v.event in ('received', 'filtered') and v.at >= ${firstMinute}::timestamptz
        and v.at < ${nowMinute}::timestamptz + interval '1 minute'
      union all
      select r.counted, r.n from delivery_counter_events v cross join lateral inbox_receipt_count(v.event, v.count) r
      where v.endpoint_id = dst.endpoint_id and v.destination_id = dst.id
        and v.received_minute >= ${firstMinute}::timestamptz and v.received_minute <= ${nowMinute}::timestamptz) c on true
    where dst.organization_id = ${ctx.organizationId}
    group by dst.id, e.name
    order by dst.endpoint_id, dst.is_default desc, dst.created_at, dst.id`);

  const lanes = rows.map((row) => {
    const [open, dead] = [Number(row.open), Number(row.dead)];
    // As the overview: never fewer received than open and dead (counts dropped by an older roll-up beside an upgrade).
    const received = Math.max(Number(row.received), open + dead);
    return { ...row, received, delivered: received - open - dead, dead, filtered: Number(row.filtered), oldestPendingAgeSeconds: Number(row.oldest) };
  });
  const byEndpoint = new Map<string, DigestEndpoint & { lanes: typeof lanes }>();
  for (const lane of lanes) {
    const endpoint = byEndpoint.get(lane.endpointId) ?? { id: lane.endpointId, name: lane.endpointName, received: 0, delivered: 0, dead: 0, filtered: 0, oldestPendingAgeSeconds: 0, destinations: [], lanes: [] };
    endpoint.received += lane.received;
    endpoint.delivered += lane.delivered;
    endpoint.dead += lane.dead;
    endpoint.filtered += lane.filtered;
    endpoint.oldestPendingAgeSeconds = Math.max(endpoint.oldestPendingAgeSeconds, lane.oldestPendingAgeSeconds);
    if (lane.live) endpoint.lanes.push(lane);
    byEndpoint.set(lane.endpointId, endpoint);
  }
  const busiest = [...byEndpoint.values()].sort((a, b) => b.dead - a.dead || b.received + b.filtered - (a.received + a.filtered) || b.oldestPendingAgeSeconds - a.oldestPendingAgeSeconds || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  const listed = busiest.slice(0, DIGEST_MAX_ENDPOINTS);
  const ids = JSON.stringify(listed.map((endpoint) => endpoint.id));
  const listedIds = sql`(select jsonb_array_elements_text(${ids}::jsonb))`;

  // The last error of each delivery dead in the window (deliveries_endpoint_dead_idx, newest first) or waiting now
  // (the oldest, as above): what failed, grouped by its text, per destination; the top ones by count.
  const errors = await ctx.db.execute<ErrorRow>(sql`
    select "endpointId", "destinationId", error, count from (
      select f."endpointId", f."destinationId", f.error, count(*) as count,
        row_number() over (partition by f."endpointId", f."destinationId" order by count(*) desc, f.error) as rank
      from (
        select e.id as "endpointId", x.destination_id as "destinationId", left(regexp_replace(btrim(x.last_error), ${WHITESPACE}, ' ', 'g'), ${ERROR_CHARS}) as error
        from endpoints e cross join lateral (
          (select d.destination_id, d.last_error from deliveries d
           where d.endpoint_id = e.id and d.id >= ${idFloor} and d.status = 'dead' and d.updated_at > ${from.toISOString()}::timestamptz and d.updated_at <= ${now}::timestamptz
           order by d.updated_at desc limit ${DIGEST_WALK})
          union all
          (select d.destination_id, d.last_error from deliveries d
           where d.endpoint_id = e.id and d.id >= ${idFloor} and d.status in ('pending', 'delivering')
           order by d.pending_since, d.id limit ${DIGEST_WALK})) x
        where e.organization_id = ${ctx.organizationId} and e.id in ${listedIds} and x.last_error is not null and btrim(x.last_error) <> '') f
      group by 1, 2, 3) ranked
    where rank <= ${DIGEST_TOP_ERRORS}
    order by "endpointId", "destinationId", rank`);

  return {
    from,
    to: input.now,
    omittedEndpoints: busiest.length - listed.length,
    endpoints: listed.map(({ lanes: live, ...endpoint }) => ({
      ...endpoint,
      destinations: live.map((lane) => ({
        id: lane.id,
        name: lane.name,
        received: lane.received,
        delivered: lane.delivered,
        dead: lane.dead,
        oldestPendingAgeSeconds: lane.oldestPendingAgeSeconds,
        topErrors: errors
          .filter((row) => row.endpointId === endpoint.id && row.destinationId === lane.id)
          .map((row) => ({ error: row.error, count: Number(row.count) })),
      })),
    })),
  };
}
