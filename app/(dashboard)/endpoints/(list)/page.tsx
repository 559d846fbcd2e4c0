import Link from "next/link";
import { ProviderLabel } from "@/components/endpoints/provider-label";
import { PendingSplit } from "@/components/overview/endpoint-overview-table";
import { Card } from "@/components/ui/card";
import { CopyableValue } from "@/components/ui/copy-button";
import { can } from "@/lib/access/roles";
import { formatDuration } from "@/lib/alerts/format-duration";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { listDestinationChoices } from "@/lib/destinations/list-destination-choices";
import { getOverview } from "@/lib/endpoints/get-overview";
import { listEndpoints } from "@/lib/endpoints/list-endpoints";

export const metadata = { title: "Endpoints · Webhook Inbox" };

type Health = Awaited<ReturnType<typeof getOverview>>["endpoints"][number];

/** Its state at a glance, from the overview's figures: paused, over its alert threshold, backing up, or fine. */
function HealthBadge({ paused, health }: { paused: boolean; health: Health | undefined }) {
  const [label, tone] = paused
    ? ["Paused", "bg-amber-50 text-amber-900 ring-amber-300"]
    : health?.overThreshold
      ? ["Behind", "bg-red-50 text-red-800 ring-red-300"]
      : ["Active", "bg-emerald-50 text-emerald-900 ring-emerald-300"];
  return <span data-testid="endpoint-state" className={`rounded px-1.5 py-0.5 text-xs ring-1 ring-inset ${tone}`}>{label}</span>;
}

export default async function EndpointsPage() {
  const ctx = await requireDashboardCtx();
  // The overview's per-endpoint figures (counters, one probe each) and every destination: three statements for the page.
  const [{ data }, overview, destinations] = await Promise.all([
    listEndpoints({ ctx, input: { limit: 200 } }),
    getOverview({ ctx }),
    listDestinationChoices({ ctx, input: {} }),
  ]);
  const health = new Map(overview.endpoints.map((endpoint) => [endpoint.id, endpoint]));
  return (
    <>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-lg font-semibold">Endpoints</h1>
        {can(ctx.actor, "change") ? (
          <Link href="/endpoints/new" className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-500">New endpoint</Link>
        ) : null}
      </div>
      <Card>
        {data.length === 0 ? (
          <p className="text-sm text-slate-600">No endpoints yet.{can(ctx.actor, "change") ? " Create one to get an ingest URL." : ""}</p>
        ) : (
          <ul className="divide-y divide-slate-200" aria-label="Endpoints">
            {data.map((endpoint) => {
              const figures = health.get(endpoint.id);
              const own = destinations.filter((destination) => destination.endpointId === endpoint.id);
              return (
                <li key={endpoint.id} data-testid="endpoint-item" className="grid grid-cols-[minmax(0,1fr)] gap-2 py-3 md:grid-cols-[minmax(0,2fr)_minmax(0,1fr)_minmax(0,2fr)] md:items-start md:gap-4">
                  <div className="min-w-0">
                    <Link href={`/endpoints/${endpoint.id}`} className="font-medium break-words text-indigo-700 hover:underline">{endpoint.name}</Link>
                    <div className="flex flex-wrap items-center gap-x-1.5 text-xs text-slate-600">
                      <HealthBadge paused={endpoint.paused} health={figures} /> <ProviderLabel provider={endpoint.provider} />
                    </div>
                    <ul className="mt-1 space-y-0.5 text-xs text-slate-600" aria-label={`Destinations of ${endpoint.name}`} data-testid="endpoint-destinations">
                      {own.map((destination) => (
                        <li key={destination.id} className="break-all">
                          <span className="text-slate-500">→</span> {destination.type === "pull" ? `${destination.name} (pull)` : destination.url}
                          {destination.paused ? <span className="ml-1 text-amber-800">(paused)</span> : null}
                        </li>
                      ))}
                    </ul>
                  </div>
                  <div className="text-sm" data-testid="endpoint-health">
                    {!figures || figures.pending === 0 ? (
                      <span className="text-emerald-700">none waiting</span>
                    ) : (
                      <>
                        <span className="font-medium tabular-nums">{figures.pending} pending</span>
                        <span className={`block text-xs ${figures.overThreshold ? "font-medium text-red-700" : "text-slate-600"}`}>oldest {formatDuration(figures.oldestPendingAgeSeconds)}</span>
                        <PendingSplit endpoint={figures} />
                      </>
                    )}
                  </div>
                  <CopyableValue value={endpoint.ingestUrl} />
                </li>
              );
            })}
          </ul>
        )}
      </Card>
    </>
  );
}
