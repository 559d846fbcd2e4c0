// The dashboard's overview: every endpoint of the organization with its backlog now (how many wait,
// how old the oldest is) and its last 24 hours hour by hour. Two queries, both index range scans:
//   1. per endpoint, the open backlog from the partial index deliveries_endpoint_open_idx
//      (endpoint_id, received_at) where status in ('pending','delivering'): count + min, index-only;
//   2. the organization's deliveries received in the last 24 h from deliveries_org_received_idx
//      (organization_id, received_at desc), grouped by endpoint and hour.
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
type HourRow = { endpointId: string; hoursAgo: number; received: string | number; delivered: string | number; failed: string | number; dead: string | number };

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
  const hours = await ctx.db.execute<HourRow>(sql`
    select endpoint_id as "endpointId",
      floor(extract(epoch from ${now}::timestamptz - received_at) / 3600)::int as "hoursAgo",
      count(*) as "received",
      count(*) filter (where status = 'delivered') as "delivered",
      count(*) filter (where status = 'dead' or (status in ('pending', 'delivering') and attempt_count > 0)) as "failed",
      count(*) filter (where status = 'dead') as "dead"
    from deliveries
    where organization_id = ${ctx.organizationId}
      and received_at > ${now}::timestamptz - make_interval(hours => ${OVERVIEW_HOURS})
      and received_at <= ${now}::timestamptz
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
        for (const key of ["received", "delivered", "failed"] as const) bucket[key] += Number(hour[key]);
        for (const key of ["received", "delivered", "failed", "dead"] as const) totals[key] += Number(hour[key]);
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
