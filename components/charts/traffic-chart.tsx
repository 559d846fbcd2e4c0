"use client";
// The charts of an endpoint's or an organization's traffic (lib/endpoints/get-traffic-series.ts): received,
// delivered and failed per bucket, and the mean delivery latency. Recharts draws them, hidden from assistive
// technology (no keyboard layer: nothing focusable inside what is hidden); the figures above them say it in words.
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { TrafficSeries } from "@/lib/endpoints/get-traffic-series";

/** UTC, so the server's and the browser's renderings agree. */
function bucketLabel(start: string, range: TrafficSeries["range"]): string {
  const date = new Date(start);
  const time = start.slice(11, 16);
  if (range === "1h" || range === "24h") return time;
  const day = date.toLocaleDateString("en", { month: "short", day: "numeric", timeZone: "UTC" });
  return range === "7d" ? `${day} ${time}` : day;
}

export function formatLatency(ms: number | null): string {
  if (ms === null) return "—";
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(1)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

const COLORS = { received: "#64748b", delivered: "#059669", failed: "#dc2626", latency: "#4f46e5" };

export function TrafficChart({ series, label }: { series: TrafficSeries; label: string }) {
  const data = series.buckets.map((bucket) => ({ ...bucket, label: bucketLabel(bucket.start, series.range) }));
  const { totals } = series;
  return (
    <figure data-testid="traffic-chart" data-range={series.range} aria-label={label} className="space-y-3">
      <figcaption className="flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-700" data-testid="traffic-totals">
        <span>Received <strong data-testid="traffic-received" className="tabular-nums">{totals.received.toLocaleString("en")}</strong></span>
        <span>Delivered <strong data-testid="traffic-delivered" className="tabular-nums">{totals.delivered.toLocaleString("en")}</strong></span>
        <span>Failed <strong data-testid="traffic-failed" className="tabular-nums">{totals.failed.toLocaleString("en")}</strong></span>
        <span>Mean latency <strong data-testid="traffic-latency" className="tabular-nums">{formatLatency(totals.averageLatencyMs)}</strong></span>
      </figcaption>
      <div className="h-56 w-full" data-testid="traffic-counts-chart" aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%">
          <BarChart accessibilityLayer={false} data={data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
            <XAxis dataKey="label" tick={{ fontSize: 11, fill: "#475569" }} minTickGap={24} />
            <YAxis allowDecimals={false} tick={{ fontSize: 11, fill: "#475569" }} width={40} />
            <Tooltip />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Bar dataKey="received" name="Received" fill={COLORS.received} isAnimationActive={false} />
            <Bar dataKey="delivered" name="Delivered" fill={COLORS.delivered} isAnimationActive={false} />
            <Bar dataKey="failed" name="Failed" fill={COLORS.failed} isAnimationActive={false} />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <div className="h-40 w-full" data-testid="traffic-latency-chart" aria-hidden="true">
        <ResponsiveContainer width="100%" height="100%">
          <LineChart accessibilityLayer={false} data={data} margin={{ top: 4, right: 8, bottom: 0, left: 0 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#e2e8f0" />
            <XAxis dataKey="label" tick={{ fontSize: 11, fill: "#475569" }} minTickGap={24} />
            <YAxis tickFormatter={(ms: number) => formatLatency(ms)} tick={{ fontSize: 11, fill: "#475569" }} width={56} />
            <Tooltip formatter={(ms) => formatLatency(typeof ms === "number" ? ms : null)} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            <Line dataKey="averageLatencyMs" name="Mean delivery latency (by the time delivered)" stroke={COLORS.latency} dot={false} connectNulls isAnimationActive={false} />
          </LineChart>
        </ResponsiveContainer>
      </div>
    </figure>
  );
}
