// Every endpoint at a glance; the oldest pending age leads, in red when above the alert threshold.
// Each figure of the last 24 h is defined once (lib/endpoints/get-overview.ts) and said under the table.
import Link from "next/link";
import { ProviderLabel } from "@/components/endpoints/provider-label";
import { CellLabel, stacked } from "@/components/ui/cell-label";
import { formatDuration } from "@/lib/alerts/format-duration";
import type { EndpointOverview } from "@/lib/endpoints/get-overview";
import { HourlyChart } from "./hourly-chart";

// One decimal at most: 92.9 %, 50 %.
const percent = (rate: number | null) => (rate === null ? "—" : `${Number((rate * 100).toFixed(1))} %`);

/** Pending told apart: what a pause holds back (sent on resume), and the rest, retrying or in flight. */
export function PendingSplit({ endpoint }: { endpoint: Pick<EndpointOverview, "pending" | "heldByPause"> }) {
  if (endpoint.pending === 0) return null;
  return (
    <span className="block text-xs font-normal text-slate-600" data-testid="pending-split">
      {endpoint.pending - endpoint.heldByPause} retrying{endpoint.heldByPause ? <> · <span className="text-amber-800">{endpoint.heldByPause} held by a pause</span></> : null}
    </span>
  );
}

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

const number = `${stacked.cell} py-3 pr-4 whitespace-nowrap tabular-nums md:text-right`;

export function EndpointOverviewTable({ endpoints }: { endpoints: EndpointOverview[] }) {
  return (
    <div className="md:overflow-x-auto">
      <table className={stacked.table}>
        <caption className="sr-only">Endpoints: backlog now and the last 24 hours</caption>
        <thead className={stacked.head}>
          <tr>
            <th scope="col" className="py-2 pr-4 font-medium">Endpoint</th>
            <th scope="col" className="pr-4 font-medium">Oldest pending</th>
            <th scope="col" className="pr-4 text-right font-medium">Pending</th>
            <th scope="col" className="pr-4 text-right font-medium">Received (24 h)</th>
            <th scope="col" className="pr-4 text-right font-medium">Delivered (24 h)</th>
            <th scope="col" className="pr-4 text-right font-medium">Dead (24 h)</th>
            <th scope="col" className="pr-4 text-right font-medium">Success rate (24 h)</th>
            <th scope="col" className="pr-4 text-right font-medium">Refused (24 h)</th>
            <th scope="col" className="font-medium">Last 24 h by hour</th>
          </tr>
        </thead>
        <tbody className={stacked.body}>
          {endpoints.map((endpoint) => (
            <tr key={endpoint.id} data-testid={`overview-${endpoint.id}`} className={stacked.row}>
              <th scope="row" className={`${stacked.cell} py-3 pr-4 font-normal max-md:col-span-2`}>
                <Link prefetch={false} href={`/endpoints/${endpoint.id}`} className="font-medium text-indigo-700 hover:underline">{endpoint.name}</Link>
                <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-slate-600">
                  <span data-testid="endpoint-state" className={`rounded px-1.5 py-0.5 ring-1 ring-inset ${endpoint.paused ? "bg-amber-50 text-amber-900 ring-amber-300" : "bg-emerald-50 text-emerald-900 ring-emerald-300"}`}>
                    {endpoint.paused ? "Paused" : "Active"}
                  </span>
                  <ProviderLabel provider={endpoint.provider} />
                </div>
                <Link prefetch={false} href={`/deliveries?endpointId=${encodeURIComponent(endpoint.id)}`} className="mt-1 inline-block text-xs text-indigo-700 hover:underline" aria-label={`View deliveries of ${endpoint.name}`}>
                  View deliveries
                </Link>
              </th>
              <td className={`${stacked.cell} py-3 pr-4 max-md:col-span-2`}><CellLabel>Oldest pending</CellLabel><OldestPending endpoint={endpoint} /></td>
              <td className={number}><CellLabel>Pending</CellLabel><span data-testid="pending-count">{endpoint.pending}</span><PendingSplit endpoint={endpoint} /></td>
              <td className={number}>
                <CellLabel>Received (24 h)</CellLabel>{endpoint.last24h.received}
                {endpoint.last24h.filtered > 0 ? <span className="block text-xs text-slate-600" data-testid="filtered-count">{endpoint.last24h.filtered} filtered</span> : null}
              </td>
              <td className={number}><CellLabel>Delivered (24 h)</CellLabel>{endpoint.last24h.delivered}</td>
              <td className={`${number} ${endpoint.last24h.dead ? "text-red-700" : ""}`}><CellLabel>Dead (24 h)</CellLabel><span data-testid="dead-count">{endpoint.last24h.dead}</span>
                {/* Buried by a person or key: dead, but nothing failed; not in the count above nor the success rate. */}
                {endpoint.last24h.buried > 0 ? <span className="block text-xs text-slate-600" data-testid="buried-count">{endpoint.last24h.buried} buried</span> : null}
              </td>
              <td className={number}><CellLabel>Success rate (24 h)</CellLabel><span data-testid="success-rate">{percent(endpoint.last24h.successRate)}</span></td>
              <td className={`${number} ${endpoint.last24h.refused ? "text-amber-800" : ""}`}><CellLabel>Refused (24 h)</CellLabel><span data-testid="refused-count">{endpoint.last24h.refused}</span></td>
              <td className={`${stacked.cell} py-3 max-md:col-span-2`}><HourlyChart hours={endpoint.hourly} label={endpoint.name} /></td>
            </tr>
          ))}
        </tbody>
      </table>
      <dl className="mt-4 grid gap-x-6 gap-y-1 text-xs text-slate-600 md:grid-cols-2" aria-label="How these figures are counted">
        <div><dt className="inline font-medium">Received, delivered, dead (24 h):</dt> <dd className="inline">deliveries received in the last 24 hours, and of those, the ones delivered or dead by now.</dd></div>
        <div><dt className="inline font-medium">Success rate:</dt> <dd className="inline">delivered ÷ settled (delivered + dead) of those; deliveries still waiting, a replay included, are not counted until they settle.</dd></div>
        <div><dt className="inline font-medium">Refused:</dt> <dd className="inline">requests the ingest URL turned away (bad or missing signature, too large, …), as the endpoint&apos;s log keeps them (at most 10 per 10 s, the newest 100).</dd></div>
        <div><dt className="inline font-medium">Filtered:</dt> <dd className="inline">requests stored in the last 24 hours that no destination&apos;s filter took; not in received.</dd></div>
        <div><dt className="inline font-medium">Pending:</dt> <dd className="inline">waiting for an attempt or in flight now, however old: retrying (due again, or in flight), or held by a pause (sent when its destination resumes).</dd></div>
      </dl>
    </div>
  );
}
