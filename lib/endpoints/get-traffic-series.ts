// The charts (#47): an endpoint's, or the whole organization's, received, delivered and failed deliveries and the
// delivery latency over 1 h, 24 h, 7 d or 30 d, bucket by bucket. Read from the counts the roll-up keeps
// (lib/metrics/roll-up-delivery-counters.ts: per minute for 25 hours, per hour for 31 days) and the counter events
// not folded yet, as the overview reads them (get-overview.ts), never by counting deliveries: the cost is the
// endpoint's active minutes or hours, not its traffic.
// As the overview's, every count of a bucket is about the deliveries received in it, as they stand now: delivered
// is what is left of them once open and dead are taken out; failed is dead less buried. The latency is by the
// minute a delivery was delivered: the 'latency_ms' events (its wait since receipt or latest replay, migration
// 0047) summed, over the 'delivered' events of the same minutes.
import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Ctx } from "@/lib/context";
import { NotFoundError } from "@/lib/errors";
import { parseInput } from "@/lib/validation";

export const TRAFFIC_RANGES = ["1h", "24h", "7d", "30d"] as const;
export type TrafficRange = (typeof TRAFFIC_RANGES)[number];

/** Which counts each range reads, how wide a bucket is and how many there are. */
const RANGES: Record<TrafficRange, { table: "minute" | "hour"; bucketSeconds: number; buckets: number }> = {
  "1h": { table: "minute", bucketSeconds: 60, buckets: 60 },
  "24h": { table: "minute", bucketSeconds: 3600, buckets: 24 },
  "7d": { table: "hour", bucketSeconds: 3600, buckets: 7 * 24 },
  "30d": { table: "hour", bucketSeconds: 86_400, buckets: 30 },
};

export interface TrafficBucket {
  /** The bucket's first minute (or hour). */
  start: string;
  received: number;
  /** Of those received in the bucket: delivered by now. */
  delivered: number;
  /** Of those received in the bucket: failed by now (dead, not buried). */
  failed: number;
  /** The mean wait, since receipt or latest replay, of the deliveries delivered in the bucket; null when none was. */
  averageLatencyMs: number | null;
}

export interface TrafficSeries {
  range: TrafficRange;
  bucketSeconds: number;
  /** Oldest first. */
  buckets: TrafficBucket[];
  totals: { received: number; delivered: number; failed: number; successRate: number | null; averageLatencyMs: number | null };
}

const inputSchema = z.object({
  range: z.enum(TRAFFIC_RANGES).default("24h"),
  /** One endpoint's; the organization's when absent. */
  endpointId: z.string().optional(),
  now: z.date().optional(),
});

type Row = { bucket: number; received: string; open: string; dead: string; buried: string; deliveredAt: string; latencyMs: string };

export async function getTrafficSeries({ ctx, input }: { ctx: Ctx; input: z.input<typeof inputSchema> }): Promise<TrafficSeries> {
  const { range, endpointId, now = new Date() } = parseInput(inputSchema, input);
  const { table, bucketSeconds, buckets } = RANGES[range];
  if (endpointId !== undefined) {
    const found = await ctx.db.execute(sql`select 1 from endpoints where id = ${endpointId} and organization_id = ${ctx.organizationId}`);
    if (found.length === 0) throw new NotFoundError("Endpoint");
  }
  const unitSeconds = table === "minute" ? 60 : 3600;
  const last = new Date(Math.floor(now.getTime() / (unitSeconds * 1000)) * unitSeconds * 1000);
  const first = new Date(last.getTime() - (buckets * bucketSeconds - unitSeconds) * 1000);
  const [lastIso, firstIso] = [last.toISOString(), first.toISOString()];
  const counts = sql.raw(table === "minute" ? "delivery_counts_by_minute" : "delivery_counts_by_hour");
  const unit = sql.raw(`'${table}'`);
  const column = sql.raw(table);
  const rows = await ctx.db.execute<Row>(sql`
    select floor(extract(epoch from ${lastIso}::timestamptz - c.unit) / ${bucketSeconds})::int as "bucket",
      coalesce(sum(c.count) filter (where c.event = 'received'), 0) as "received",
      coalesce(sum(c.count) filter (where c.event = 'open_by_receipt'), 0) as "open",
      coalesce(sum(c.count) filter (where c.event = 'dead_by_receipt'), 0) as "dead",
      coalesce(sum(c.count) filter (where c.event = 'buried_by_receipt'), 0) as "buried",
      coalesce(sum(c.count) filter (where c.event = 'delivered'), 0) as "deliveredAt",
      coalesce(sum(c.count) filter (where c.event = 'latency_ms'), 0) as "latencyMs"
    from endpoints e cross join lateral (
      select c.${column} as unit, c.event, c.count from ${counts} c
      where c.endpoint_id = e.id and c.event in ('received', 'open_by_receipt', 'dead_by_receipt', 'buried_by_receipt', 'delivered', 'latency_ms')
        and c.${column} >= ${firstIso}::timestamptz and c.${column} <= ${lastIso}::timestamptz
      union all
      -- Not folded yet (the roll-up runs every minute), counted as the roll-up counts them.
      select date_trunc(${unit}, v.at), v.event, v.count from delivery_counter_events v
      where v.endpoint_id = e.id and v.event in ('received', 'delivered', 'latency_ms') and v.at >= ${firstIso}::timestamptz
        and v.at < ${lastIso}::timestamptz + make_interval(secs => ${unitSeconds})
      union all
      select date_trunc(${unit}, v.received_minute), r.counted, r.n from delivery_counter_events v cross join lateral inbox_receipt_count(v.event, v.count) r
      where v.endpoint_id = e.id and v.received_minute >= ${firstIso}::timestamptz and v.received_minute < ${lastIso}::timestamptz + make_interval(secs => ${unitSeconds})) c
    where e.organization_id = ${ctx.organizationId} ${endpointId === undefined ? sql`` : sql`and e.id = ${endpointId}`}
    group by e.id, 1`);

  const series = Array.from({ length: buckets }, (_, i) => ({
    start: new Date(first.getTime() + i * bucketSeconds * 1000).toISOString(), received: 0, delivered: 0, failed: 0, deliveredAt: 0, latencyMs: 0,
  }));
  for (const row of rows) {
    const bucket = series[buckets - 1 - Math.min(buckets - 1, Math.max(0, row.bucket))]!;
    const [open, dead] = [Number(row.open), Number(row.dead)];
    // As the overview: buried is a part of dead, and never fewer received than open and dead (a roll-up of older code beside an upgrade).
    const buried = Math.min(dead, Math.max(0, Number(row.buried)));
    const received = Math.max(Number(row.received), open + dead);
    bucket.received += received;
    bucket.delivered += received - open - dead;
    bucket.failed += dead - buried;
    bucket.deliveredAt += Number(row.deliveredAt);
    bucket.latencyMs += Number(row.latencyMs);
  }
  const average = (latencyMs: number, delivered: number) => (delivered > 0 ? Math.round(latencyMs / delivered) : null);
  const sum = (key: "received" | "delivered" | "failed" | "deliveredAt" | "latencyMs") => series.reduce((total, bucket) => total + bucket[key], 0);
  const totals = { received: sum("received"), delivered: sum("delivered"), failed: sum("failed") };
  return {
    range,
    bucketSeconds,
    buckets: series.map(({ start, received, delivered, failed, deliveredAt, latencyMs }) => ({ start, received, delivered, failed, averageLatencyMs: average(latencyMs, deliveredAt) })),
    totals: {
      ...totals,
      successRate: totals.delivered + totals.failed === 0 ? null : totals.delivered / (totals.delivered + totals.failed),
      averageLatencyMs: average(sum("latencyMs"), sum("deliveredAt")),
    },
  };
}
