// The dashboard's overview: every endpoint of the organization with its backlog now (how many wait,
// how old the oldest is) and its last 24 hours hour by hour. Two statements, each a set of index
// range scans per endpoint, reading table rows only for deliveries still open or recently dead:
//   1. the open backlog from the partial index deliveries_endpoint_open_idx (endpoint_id, received_at)
//      where status in ('pending','delivering'): count + min, index-only;
//   2. per endpoint and hour of the last 24 h, in one snapshot: received (index-only on
//      deliveries_endpoint_received_idx), open and open-after-a-failed-attempt (open index, then the
//      row for attempt_count), dead (deliveries_endpoint_dead_idx by updated_at, which is never
//      before received_at). Delivered is what is left: the four statuses partition the deliveries.
// Counting all statuses from the rows of the last 24 h instead reads one table page per row or so
// (bodies make rows large): ~7,000 pages for a busy organization's day in bench/dashboard's data.
import { sql } from "drizzle-orm";
import type { Ctx } from "@/lib/context";

export const OVERVIEW_HOURS = 24;

export interface HourBucket {
  /** 0 = the last 60 minutes, 23 = between 23 and 24 hours ago. */
  hoursAgo: number;
  received: number;
  /** Of those received in that hour: delivered by now. */
  delivered: number;
  /** Of those received in that hour: dead, or still waiting after a failed attempt. */
  failed: number;
}

export interface EndpointOverview {
  id: string;
  name: string;
  provider: string;
  paused: boolean;
  alertPendingAgeSeconds: number | null;
  /** pending or delivering, however old. */
  pending: number;
  /** Age, since receivedAt, of the oldest pending or delivering delivery; 0 when none. */
  oldestPendingAgeSeconds: number;
  /** The oldest pending age is above the endpoint's alert threshold. */
  overThreshold: boolean;
  last24h: { received: number; delivered: number; failed: number; dead: number; successRate: number | null };
  /** OVERVIEW_HOURS buckets, oldest first (hoursAgo 23 … 0). */
  hourly: HourBucket[];
}

export interface Overview {
  now: string;
  endpoints: EndpointOverview[];
}

type BacklogRow = { id: string; name: string; provider: string; paused: boolean; alertPendingAgeSeconds: number | null; pending: string | number; oldestPendingAgeSeconds: string | number };
type HourRow = { endpointId: string; hoursAgo: number; received: string | number; open: string | number; openFailed: string | number; dead: string | number };

/** `input.now` fixes the clock (tests); by default the server's. */
export async function getOverview({ ctx, input = {} }: { ctx: Ctx; input?: { now?: Date } }): Promise<Overview> {
  const now = (input.now ?? new Date()).toISOString();
  const backlog = await ctx.db.execute<BacklogRow>(sql`
    select e.id, e.name, e.provider, e.paused, e.alert_pending_age_seconds as "alertPendingAgeSeconds",
      o.open_count as "pending",
      coalesce(greatest(0, floor(extract(epoch from ${now}::timestamptz - o.oldest))), 0) as "oldestPendingAgeSeconds"
    from endpoints e
    left join lateral (
      select count(*) as open_count, min(d.received_at) as oldest
      from deliveries d
      where d.endpoint_id = e.id and d.status in ('pending', 'delivering')
    ) o on true
    where e.organization_id = ${ctx.organizationId}
    order by e.created_at desc, e.id desc`);
  const from = new Date(Date.parse(now) - OVERVIEW_HOURS * 3600_000).toISOString();
  const hoursAgo = sql`floor(extract(epoch from ${now}::timestamptz - d.received_at) / 3600)::int`;
  const inWindow = sql`d.received_at > ${from}::timestamptz and d.received_at <= ${now}::timestamptz`;
  const hours = await ctx.db.execute<HourRow>(sql`
    with eps as (select id from endpoints where organization_id = ${ctx.organizationId})
    select endpoint_id as "endpointId", hours_ago as "hoursAgo", sum(received) as "received", sum(open) as "open",
      sum(open_failed) as "openFailed", sum(dead) as "dead"
    from (
      select e.id as endpoint_id, ${hoursAgo} as hours_ago, count(*) as received, 0 as open, 0 as open_failed, 0 as dead
      from eps e cross join lateral (select d.received_at from deliveries d where d.endpoint_id = e.id and ${inWindow}) d
      group by 1, 2
      union all
      select e.id, ${hoursAgo}, 0, count(*), count(*) filter (where d.attempt_count > 0), 0
      from eps e cross join lateral (
        select d.received_at, d.attempt_count from deliveries d
        where d.endpoint_id = e.id and d.status in ('pending', 'delivering') and ${inWindow}) d
      group by 1, 2
      union all
      select e.id, ${hoursAgo}, 0, 0, 0, count(*)
      from eps e cross join lateral (
        select d.received_at from deliveries d
        where d.endpoint_id = e.id and d.status = 'dead' and d.updated_at > ${from}::timestamptz and ${inWindow}) d
      group by 1, 2
    ) counts
    group by 1, 2`);

  const byEndpoint = new Map<string, HourRow[]>();
  for (const row of hours) byEndpoint.set(row.endpointId, [...(byEndpoint.get(row.endpointId) ?? []), row]);
  return {
    now,
    endpoints: backlog.map((row) => {
      const rows = byEndpoint.get(row.id) ?? [];
      const hourly: HourBucket[] = Array.from({ length: OVERVIEW_HOURS }, (_, i) => ({ hoursAgo: OVERVIEW_HOURS - 1 - i, received: 0, delivered: 0, failed: 0 }));
      const totals = { received: 0, delivered: 0, failed: 0, dead: 0 };
      for (const hour of rows) {
        const bucket = hourly[OVERVIEW_HOURS - 1 - Math.min(OVERVIEW_HOURS - 1, Math.max(0, hour.hoursAgo))]!;
        const [received, open, dead] = [Number(hour.received), Number(hour.open), Number(hour.dead)];
        const counts = { received, delivered: Math.max(0, received - open - dead), failed: dead + Number(hour.openFailed), dead };
        for (const key of ["received", "delivered", "failed"] as const) bucket[key] += counts[key];
        for (const key of ["received", "delivered", "failed", "dead"] as const) totals[key] += counts[key];
      }
      const finished = totals.delivered + totals.failed;
      const oldestPendingAgeSeconds = Number(row.oldestPendingAgeSeconds);
      return {
        id: row.id,
        name: row.name,
        provider: row.provider,
        paused: row.paused,
        alertPendingAgeSeconds: row.alertPendingAgeSeconds,
        pending: Number(row.pending ?? 0),
        oldestPendingAgeSeconds,
        overThreshold: row.alertPendingAgeSeconds !== null && oldestPendingAgeSeconds > row.alertPendingAgeSeconds,
        last24h: { ...totals, successRate: finished === 0 ? null : totals.delivered / finished },
        hourly,
      };
    }),
  };
}
