import Link from "next/link";
import { IncidentList } from "@/components/alerts/incident-list";
import { RangePicker, rangeOf } from "@/components/charts/range-picker";
import { TrafficChart } from "@/components/charts/traffic-chart";
import { EndpointOverviewTable } from "@/components/overview/endpoint-overview-table";
import { AutoRefresh } from "@/components/ui/auto-refresh";
import { Card } from "@/components/ui/card";
import { can } from "@/lib/access/roles";
import { requireDashboardCtx } from "@/lib/auth/dashboard-ctx";
import { getOverview } from "@/lib/endpoints/get-overview";
import { getTrafficSeries } from "@/lib/endpoints/get-traffic-series";

export const metadata = { title: "Overview · Webhook Inbox" };

// The landing page: what is on fire (open incidents), then every endpoint's backlog and last day, then the
// organization's traffic over the chosen range.
export default async function OverviewPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const ctx = await requireDashboardCtx();
  const range = rangeOf((await searchParams).range);
  const [overview, traffic] = await Promise.all([getOverview({ ctx }), getTrafficSeries({ ctx, input: { range } })]);
  const canChange = can(ctx.actor, "change");
  const waiting = overview.endpoints.some((endpoint) => endpoint.pending > 0);
  return (
    <>
      <h1 className="sr-only">Overview</h1>
      <IncidentList ctx={ctx} />
      <Card
        title="Endpoints"
        actions={
          <div className="flex items-center gap-4">
            <AutoRefresh active={waiting} intervalMs={5000} />
            {canChange ? <Link prefetch={false} href="/endpoints/new" className="rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white">New endpoint</Link> : null}
          </div>
        }
      >
        {overview.endpoints.length === 0 ? (
          <p className="text-sm text-slate-600">
            No endpoints yet.{canChange ? <> <Link prefetch={false} href="/endpoints/new" className="text-indigo-700 underline">Create one</Link> to get an ingest URL.</> : null}
          </p>
        ) : (
          <EndpointOverviewTable endpoints={overview.endpoints} />
        )}
      </Card>
      {overview.endpoints.length > 0 ? (
        <Card title="Traffic, all endpoints" actions={<RangePicker current={range} hrefFor={(r) => `/overview?range=${r}`} />}>
          <TrafficChart series={traffic} label="Traffic of all endpoints" />
        </Card>
      ) : null}
    </>
  );
}
