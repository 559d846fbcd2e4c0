// Every endpoint at a glance; the oldest pending age leads, in red when above the alert threshold.
import Link from "next/link";
import { formatDuration } from "@/lib/alerts/format-duration";
import type { EndpointOverview } from "@/lib/endpoints/get-overview";
import { HourlyChart } from "./hourly-chart";

const percent = (rate: number | null) => (rate === null ? "—" : `${(rate * 100).toFixed(rate === 1 || rate === 0 ? 0 : 1)} %`);

function OldestPending({ endpoint }: { endpoint: EndpointOverview }) {
  const { oldestPendingAgeSeconds: age, alertPendingAgeSeconds: threshold, overThreshold } = endpoint;
  if (endpoint.pending === 0) return <span className="text-lg font-semibold text-emerald-700">none waiting</span>;
  return (
    <div data-testid="oldest-pending" data-over-threshold={overThreshold}>
      <span className={`text-2xl font-bold tabular-nums ${overThreshold ? "text-red-700" : "text-slate-900"}`}>{formatDuration(age)}</span>
      <div className={`text-xs ${overThreshold ? "font-medium text-red-700" : "text-slate-500"}`}>
        {threshold === null ? "no alert threshold set" : overThreshold ? `over the ${formatDuration(threshold)} alert threshold` : `alert threshold ${formatDuration(threshold)}`}
      </div>
    </div>
  );
}

export function EndpointOverviewTable({ endpoints }: { endpoints: EndpointOverview[] }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <caption className="sr-only">Endpoints: backlog now and the last 24 hours</caption>
        <thead className="text-xs text-slate-500">
          <tr>
            <th scope="col" className="py-2 pr-4 font-medium">Endpoint</th>
            <th scope="col" className="pr-4 font-medium">Oldest pending</th>
            <th scope="col" className="pr-4 text-right font-medium">Pending</th>
            <th scope="col" className="pr-4 text-right font-medium">Received (24 h)</th>
            <th scope="col" className="pr-4 text-right font-medium">Delivered (24 h)</th>
            <th scope="col" className="pr-4 text-right font-medium">Dead (24 h)</th>
            <th scope="col" className="pr-4 text-right font-medium">Success rate</th>
            <th scope="col" className="font-medium">Last 24 h by hour</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-200">
          {endpoints.map((endpoint) => (
            <tr key={endpoint.id} data-testid={`overview-${endpoint.id}`} className="align-top">
              <th scope="row" className="py-3 pr-4 font-normal">
                <Link href={`/endpoints/${endpoint.id}`} className="font-medium text-indigo-700 hover:underline">{endpoint.name}</Link>
                <div className="mt-1 flex items-center gap-2 text-xs text-slate-500">
                  <span className={`rounded px-1.5 py-0.5 ring-1 ring-inset ${endpoint.paused ? "bg-amber-50 text-amber-900 ring-amber-300" : "bg-emerald-50 text-emerald-900 ring-emerald-300"}`}>
                    {endpoint.paused ? "Paused" : "Active"}
                  </span>
                  {endpoint.provider}
                </div>
                <Link href={`/deliveries?endpointId=${encodeURIComponent(endpoint.id)}`} className="mt-1 inline-block text-xs text-indigo-700 hover:underline" aria-label={`Deliveries of ${endpoint.name}`}>
                  View deliveries
                </Link>
              </th>
              <td className="py-3 pr-4"><OldestPending endpoint={endpoint} /></td>
              <td className="py-3 pr-4 text-right tabular-nums" data-testid="pending-count">{endpoint.pending}</td>
              <td className="py-3 pr-4 text-right tabular-nums">{endpoint.last24h.received}</td>
              <td className="py-3 pr-4 text-right tabular-nums">{endpoint.last24h.delivered}</td>
              <td className={`py-3 pr-4 text-right tabular-nums ${endpoint.last24h.dead ? "text-red-700" : ""}`}>{endpoint.last24h.dead}</td>
              <td className="py-3 pr-4 text-right tabular-nums">{percent(endpoint.last24h.successRate)}</td>
              <td className="py-3"><HourlyChart hours={endpoint.hourly} label={endpoint.name} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
