// The dashboard's overview: every endpoint of the organization with its backlog now (how many wait,
// how old the oldest is, how many a pause holds: count-held-by-pause.ts) and its last 24 hours hour by hour. Two statements, each a set of index
// range scans per endpoint, reading no delivery but the oldest open one:
//   1. the open backlog: how many, from the counters (the view endpoint_delivery_counts: what the endpoint
//      holds less its delivered and dead), and the oldest, the first entry of deliveries_endpoint_waiting_idx
//      (endpoint_id, pending_since, id) where status in ('pending','delivering'); the oldest pending age counts
//      from pending_since, the receipt or the latest replay (API.md);
//   2. per endpoint and hour of the last 24 h, in one snapshot, from the per-minute counts the roll-up keeps 25 h
//      (delivery_counts_by_minute, and the counter events not folded yet), so their cost is the endpoint's
//      active minutes, not its traffic nor its trouble: received (by `at`, its receipt's minute), and open, dead
//      and retrying by the minute their deliveries were received (the triggers give each receipt and change of
//      state that minute, migration 0034; a minute with none open keeps no row, so a healthy endpoint's cost is
//      its received counts). Delivered is what is left: the four statuses partition the deliveries. Counted
//      from the rows, an endpoint's receipts were an entry per delivery (~115 ms at bench/dashboard's 10M), and
//      its open ones a row each: a destination down all day made the overview read the day (1,000,000 pending:
//      850-980 ms a call).
// The window is minutes, as the counts keep them: the 1,440 up to now's, hour 0 the newest 60, a delivery in
// the hour of its received_at's minute. Every figure of the window is about the deliveries received in it, as
// they stand now; dead is what failed (attempts used up, or refused by the destination), buried apart (migration
// 0046: buried_by_receipt, a part of dead_by_receipt); the success rate is delivered ÷ (delivered + failed), so
// what still waits (a replay included) or was buried moves it not.
// Refused requests come from the bounded log of rejected_requests (lib/ingest/record-rejection.ts).
// Counting all statuses from the rows of the last 24 h instead reads one table page per row or so
// (bodies make rows large): ~7,000 pages for a busy organization's day in bench/dashboard's data.
import { sql, type SQL } from "drizzle-orm";
import type { Ctx } from "@/lib/context";
import { deliveryIdFloor } from "@/lib/storage/delivery-id-floor";
import { countHeldByPause } from "./count-held-by-pause";

export const OVERVIEW_HOURS = 24;

export interface HourBucket {
  /** 0 = the last 60 minutes, 23 = between 23 and 24 hours ago. */
  hoursAgo: number;
  received: number;
  /** Of those received in that hour: delivered by now. */
  delivered: number;
  /** Of those received in that hour: failed by now (dead, not buried). */
  dead: number;
  /** Of those received in that hour: pending again after a failed attempt (of the series since the last replay). */
  retrying: number;
}

export interface WindowFigures {
  /** Deliveries received in the window. */
  received: number;
  /** Of those: delivered by now. */
  delivered: number;
  /** Of those: failed by now (attempts used up, or refused by the destination): dead, not buried. */
  dead: number;
  /** Of those: buried by a person or key (dead, but not failed). */
  buried: number;
  /** Of those: pending or delivering now. */
  waiting: number;
  /** delivered ÷ (delivered + dead), buried left out; null when none has settled. */
  successRate: number | null;
  /** Requests refused at the ingest URL (bad or missing signature, …) as its log keeps them: 10 per 10 s, the newest 100. */
  refused: number;
  /** Requests stored in the window that no destination's filter took (not in received). */
  filtered: number;
}

export interface EndpointOverview {
  id: string;
  name: string;
  provider: string;
  paused: boolean;
  alertPendingAgeSeconds: number | null;
  /** pending or delivering, however old. */
  pending: number;
  /** Of those: held by a paused destination (sent on resume); the rest are retrying or in flight. */
  heldByPause: number;
  /** How long the pending or delivering delivery waiting longest has waited (since its receipt or latest replay); 0 when none. */
  oldestPendingAgeSeconds: number;
  /** The oldest pending age is above the endpoint's alert threshold. */
  overThreshold: boolean;
  last24h: WindowFigures;
  /** OVERVIEW_HOURS buckets, oldest first (hoursAgo 23 … 0). */
  hourly: HourBucket[];
}

export interface Overview {
  now: string;
  endpoints: EndpointOverview[];
}

type BacklogRow = { id: string; name: string; provider: string; paused: boolean; alertPendingAgeSeconds: number | null; pending: string | number; oldestPendingAgeSeconds: string | number; refused: string | number };
type HourRow = { endpointId: string; hoursAgo: number; received: string | number; open: string | number; dead: string | number; buried: string | number; retrying: string | number; filtered: string | number };

/** `input.now` fixes the clock (tests); by default the server's. */
export async function getOverview({ ctx, input = {} }: { ctx: Ctx; input?: { now?: Date } }): Promise<Overview> {
  const now = (input.now ?? new Date()).toISOString();
  const from = new Date(Date.parse(now) - OVERVIEW_HOURS * 3600_000).toISOString();
  const idFloor = await deliveryIdFloor(ctx.db, ctx.organizationId);
  const backlog = await ctx.db.execute<BacklogRow>(sql`
    select e.id, e.name, e.provider, dst.paused, e.alert_pending_age_seconds as "alertPendingAgeSeconds",
      coalesce(counted.held - counted.delivered - counted.dead, 0) as "pending",
      coalesce(greatest(0, floor(extract(epoch from ${now}::timestamptz - (
        select min(d.pending_since) from deliveries d where d.endpoint_id = e.id and d.id >= ${idFloor} and d.status in ('pending', 'delivering'))))), 0)
        as "oldestPendingAgeSeconds",
      (select count(*) from rejected_requests r where r.endpoint_id = e.id and r.at > ${from}::timestamptz and r.at <= ${now}::timestamptz) as "refused"
    from endpoints e
    -- An endpoint's paused is its default destination's (API.md "Destinations").
    join destinations dst on dst.endpoint_id = e.id and dst.is_default and dst.organization_id = e.organization_id
    -- Summed for these endpoints only: as a plain join (or a lateral the planner flattens) the view was summed
    -- for every organization's endpoints, 50 ms for 5,000 of them; offset 0 keeps it a probe per endpoint.
    left join lateral (select * from endpoint_delivery_counts c where c.endpoint_id = e.id offset 0) counted on true
    where e.organization_id = ${ctx.organizationId}
    order by e.created_at desc, e.id desc`);
  // Minutes, as the received counts keep them: the window is the 1,440 minutes up to now's, hour 0 its last 60.
  const nowMinute = new Date(Math.floor(Date.parse(now) / 60_000) * 60_000).toISOString();
  const firstMinute = new Date(Date.parse(nowMinute) - (OVERVIEW_HOURS * 60 - 1) * 60_000).toISOString();
  const hoursAgo = (minute: SQL) => sql`floor(extract(epoch from ${nowMinute}::timestamptz - ${minute}) / 3600)::int`;
  const receiptCounts = sql.raw(`'received', 'filtered', 'open_by_receipt', 'dead_by_receipt', 'buried_by_receipt', 'retrying_by_receipt'`);
  const hours = await ctx.db.execute<HourRow>(sql`
    select e.id as "endpointId", ${hoursAgo(sql`c.minute`)} as "hoursAgo",
      coalesce(sum(c.count) filter (where c.event = 'received'), 0) as "received",
      coalesce(sum(c.count) filter (where c.event = 'open_by_receipt'), 0) as "open",
      coalesce(sum(c.count) filter (where c.event = 'dead_by_receipt'), 0) as "dead",
      coalesce(sum(c.count) filter (where c.event = 'buried_by_receipt'), 0) as "buried",
      coalesce(sum(c.count) filter (where c.event = 'retrying_by_receipt'), 0) as "retrying",
      coalesce(sum(c.count) filter (where c.event = 'filtered'), 0) as "filtered"
    from endpoints e cross join lateral (
      select c.minute, c.event, c.count from delivery_counts_by_minute c
      where c.endpoint_id = e.id and c.event in (${receiptCounts}) and c.minute >= ${firstMinute}::timestamptz and c.minute <= ${nowMinute}::timestamptz
      union all
      -- Not folded yet (the roll-up runs every minute): a received event's at is its receipt's minute (the
      -- receipt's time itself for events written before migration 0032); the others carry their receipt's
      -- minute (from migration 0034), counted as the roll-up counts them.
      select date_trunc('minute', v.at), v.event, v.count from delivery_counter_events v
      where v.endpoint_id = e.id and v.event in ('received', 'filtered') and v.at >= ${firstMinute}::timestamptz
        and v.at < ${nowMinute}::timestamptz + interval '1 minute'
      union all
      select v.received_minute, r.counted, r.n from delivery_counter_events v cross join lateral inbox_receipt_count(v.event, v.count) r
      where v.endpoint_id = e.id and v.received_minute >= ${firstMinute}::timestamptz and v.received_minute <= ${nowMinute}::timestamptz) c
    where e.organization_id = ${ctx.organizationId}
    group by 1, 2`);

  const heldByPause = await countHeldByPause(ctx);
  const byEndpoint = new Map<string, HourRow[]>();
  for (const row of hours) byEndpoint.set(row.endpointId, [...(byEndpoint.get(row.endpointId) ?? []), row]);
  return {
    now,
    endpoints: backlog.map((row) => {
      const rows = byEndpoint.get(row.id) ?? [];
      const hourly: HourBucket[] = Array.from({ length: OVERVIEW_HOURS }, (_, i) => ({ hoursAgo: OVERVIEW_HOURS - 1 - i, received: 0, delivered: 0, dead: 0, retrying: 0 }));
      const totals = { received: 0, delivered: 0, dead: 0, buried: 0, waiting: 0, filtered: 0 };
      for (const hour of rows) {
        const bucket = hourly[OVERVIEW_HOURS - 1 - Math.min(OVERVIEW_HOURS - 1, Math.max(0, hour.hoursAgo))]!;
        const [open, dead] = [Number(hour.open), Number(hour.dead)];
        // Buried is a part of dead; never more of it than dead (a roll-up beside an upgrade, as below).
        const buried = Math.min(dead, Math.max(0, Number(hour.buried)));
        const failed = dead - buried;
        // Never fewer received than open and dead: a roll-up of older code running beside an upgrade drops
        // counts (minutes kept 2 hours before 0032; receipt minutes before 0034), and then delivered would come out negative.
        const received = Math.max(Number(hour.received), open + dead);
        const delivered = received - open - dead;
        Object.assign(bucket, { received: bucket.received + received, delivered: bucket.delivered + delivered, dead: bucket.dead + failed, retrying: bucket.retrying + Number(hour.retrying) });
        Object.assign(totals, {
          received: totals.received + received, delivered: totals.delivered + delivered, dead: totals.dead + failed, buried: totals.buried + buried, waiting: totals.waiting + open,
          filtered: totals.filtered + Number(hour.filtered),
        });
      }
      const settled = totals.delivered + totals.dead;
      const oldestPendingAgeSeconds = Number(row.oldestPendingAgeSeconds);
      return {
        id: row.id,
        name: row.name,
        provider: row.provider,
        paused: row.paused,
        alertPendingAgeSeconds: row.alertPendingAgeSeconds,
        pending: Number(row.pending ?? 0),
        heldByPause: Math.min(Number(row.pending ?? 0), heldByPause.get(row.id) ?? 0),
        oldestPendingAgeSeconds,
        overThreshold: row.alertPendingAgeSeconds !== null && oldestPendingAgeSeconds > row.alertPendingAgeSeconds,
        last24h: { ...totals, successRate: settled === 0 ? null : totals.delivered / settled, refused: Number(row.refused) },
        hourly,
      };
    }),
  };
}
