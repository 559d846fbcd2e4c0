// The overview's hours counted from an endpoint's rows, as getOverview counted them before migration 0034: what
// its counters must agree with (lib/endpoints/get-overview.ts); dead is what failed, buried left out (migration 0046).
import type postgres from "postgres";
import type { HourBucket } from "@/lib/endpoints/get-overview";

export async function overviewHoursFromRows(sql: postgres.Sql, endpointId: string, now: Date): Promise<HourBucket[]> {
  const nowMinute = new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString();
  const rows = await sql<{ hoursAgo: number; received: number; delivered: number; dead: number; retrying: number }[]>`
    select floor(extract(epoch from ${nowMinute}::timestamptz - date_trunc('minute', received_at)) / 3600)::int as "hoursAgo",
      count(*)::int as received, (count(*) filter (where status = 'delivered'))::int as delivered,
      (count(*) filter (where status = 'dead' and dead_reason is distinct from 'buried'))::int as dead,
      (count(*) filter (where status = 'pending' and auto_attempt_count > 0))::int as retrying
    from deliveries where endpoint_id = ${endpointId}
      and received_at >= ${nowMinute}::timestamptz - interval '1439 minutes' and received_at < ${nowMinute}::timestamptz + interval '1 minute'
    group by 1`;
  return Array.from({ length: 24 }, (_, i) => {
    const hoursAgo = 23 - i;
    const row = rows.find((r) => r.hoursAgo === hoursAgo);
    return { hoursAgo, received: row?.received ?? 0, delivered: row?.delivered ?? 0, dead: row?.dead ?? 0, retrying: row?.retrying ?? 0 };
  });
}
